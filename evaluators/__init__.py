"""The published metrics (ARCHE, ARES, LogicScore, SCORE), computed over the IR."""
