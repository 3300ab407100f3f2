"""One batch runner for every command: streamed input, resumable output, progress, workers.

See ARCHITECTURE.md.
"""
