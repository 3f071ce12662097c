"""Two kinds of failure: the environment's (KnownError, shown to the user as one line) and ours (BugError)."""


class TroveError(Exception):
    """Base of every error Trove raises on purpose."""


class KnownError(TroveError):
    """Something outside Trove went wrong (disk full, locked, corrupt, missing): say it plainly."""


class BugError(TroveError):
    """A broken invariant inside Trove: a bug to report, not a user mistake."""


class SchemaTooNewError(KnownError):
    """The library was written by a newer Trove; we refuse to touch it."""


class DatabaseLockedError(KnownError):
    """Another process holds the library's write lock for too long."""


class DiskFullError(KnownError):
    """The disk that holds the library is full."""


class CorruptDatabaseError(KnownError):
    """The library database is damaged; it is never deleted, only moved aside when the person asks."""


class ReadOnlyDatabaseError(KnownError):
    """The library database (or its folder) cannot be written."""


class ServerUnavailableError(KnownError):
    """The database server cannot be reached (down, restarting, wrong address or password)."""


class FolderNotFoundError(KnownError):
    """A folder named by the user does not exist or is not a folder."""


class UnavailableError(KnownError):
    """A feature cannot run here (a model file missing, a package not installed)."""


class ExtractionError(KnownError):
    """One file could not be read; the reason is meant for the user."""
