"""What the tests share: builders of real files, library checks, the test PostgreSQL and model servers."""
