"""`python -m desktop_app` runs the Trove command line."""

from desktop_app.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
