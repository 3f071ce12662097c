"""The Store protocol's sharing calls on both engines: a team library records who sees a folder, an embedded one
(one person's) refuses in one line."""

from __future__ import annotations

import pytest

from desktop_app.core.errors import KnownError
from desktop_app.core.store.rows import Share


def test_a_folders_share_is_recorded_on_a_server_and_refused_embedded(store, tmp_path):
    path = str(tmp_path / "shared")
    if store.info().engine == "sqlite":
        assert store.default_share() == Share("private")
        for call in (lambda: store.add_folder(path, Share("team")),
                     lambda: store.set_folder_share(store.add_folder(path).id, Share("private")),
                     lambda: store.set_default_share(Share("private"))):
            with pytest.raises(KnownError, match="Sharing applies to a team library"):
                call()
        return
    assert store.default_share() == Share("team")
    folder = store.add_folder(path)
    assert folder.visibility == "team" and folder.owner in ("trove", "trove_owner")  # the administrator
    assert store.set_folder_share(folder.id, Share("private")).share == Share("private")
    assert store.add_folder(path).visibility == "private"  # adding it again keeps who sees it
    store.set_default_share(Share("private"))
    assert store.add_folder(str(tmp_path / "new")).visibility == "private"
    with pytest.raises(KnownError, match="team or private"):
        store.set_default_share(Share("people", ("bob",)))
