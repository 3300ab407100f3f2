"""The server's database: the tables (:mod:`.schema`), their Alembic migrations
(``migrations/``), the store of knowledge bases and decisions (:mod:`.store`), and a throw-away
PostgreSQL server for tests and benchmarks (:mod:`.ephemeral`)."""
