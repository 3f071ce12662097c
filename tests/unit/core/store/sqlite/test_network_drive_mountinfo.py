"""Mountinfo parsing for network-drive detection (core/store/sqlite/network_drive.py), on real mountinfo lines: an
NFS home, an SMB share, an sshfs folder, a bindfs (FUSE) mount, a path with a space, over a local root."""

from __future__ import annotations

from pathlib import Path

from desktop_app.core.store.sqlite.network_drive import Mount, mount_of, parse_mountinfo

# Lines as the kernel writes them (proc(5)); the nfs4/cifs/sshfs ones from Debian desktops, the fuse one from this
# machine's bindfs mount, the overlay root from a container.
MOUNTINFO = """\
25 1 0:23 / / rw,relatime master:1 - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w
26 25 0:24 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw
61 25 0:52 / /home rw,relatime shared:31 - nfs4 fileserver:/export/home rw,vers=4.2,rsize=1048576,wsize=1048576,\
namlen=255,hard,proto=tcp,timeo=600,retrans=2,sec=sys,clientaddr=192.168.1.20,local_lock=none,addr=192.168.1.5
62 61 0:53 / /home/ann/local\\040disk rw,relatime shared:32 - ext4 /dev/sdb1 rw
71 25 0:60 / /mnt/share rw,relatime shared:40 - cifs //nas/share rw,vers=3.1.1,cache=strict,username=ann,uid=1000
72 25 0:61 / /mnt/box rw,nosuid,nodev,relatime shared:41 - fuse.sshfs ann@box:/data rw,user_id=1000,group_id=1000
46 27 0:40 / /tmp/fz/mnt rw,nosuid,nodev,relatime - fuse /tmp/fz/src rw,user_id=0,group_id=0,default_permissions
"""


def test_fields_are_read_after_the_optional_ones_and_escapes_are_undone():
    mounts = parse_mountinfo(MOUNTINFO)
    assert [(m.point, m.fstype) for m in mounts] == [
        ("/", "overlay"), ("/proc", "proc"), ("/home", "nfs4"), ("/home/ann/local disk", "ext4"),
        ("/mnt/share", "cifs"), ("/mnt/box", "fuse.sshfs"), ("/tmp/fz/mnt", "fuse")]
    assert mounts[2].source == "fileserver:/export/home"
    assert parse_mountinfo("not a mountinfo line\n") == []
    assert mounts[4].options[:2] == ("rw", "vers=3.1.1")


def test_the_longest_mount_point_above_a_path_holds_it():
    mounts = parse_mountinfo(MOUNTINFO)
    assert mount_of("/home/ann/.local/share/trove/library.db", mounts).fstype == "nfs4"  # type: ignore[union-attr]
    assert mount_of("/home/ann/local disk/trove/library.db", mounts).fstype == "ext4"  # type: ignore[union-attr]
    assert mount_of("/homework/library.db", mounts).point == "/"  # type: ignore[union-attr]  # not under /home
    assert mount_of("/mnt/share", mounts).fstype == "cifs"  # type: ignore[union-attr]


def test_a_later_mount_on_the_same_point_hides_the_earlier_one():
    text = MOUNTINFO + "90 61 0:70 / /home rw,relatime - tmpfs tmpfs rw\n"
    assert mount_of("/home/ann/library.db", parse_mountinfo(text)).fstype == "tmpfs"  # type: ignore[union-attr]


def test_network_and_fuse_filesystems_are_network_drives_local_ones_are_not():
    network = {m.fstype: m.network for m in parse_mountinfo(MOUNTINFO)}
    assert network == {"overlay": False, "proc": False, "nfs4": True, "ext4": False, "cifs": True,
                       "fuse.sshfs": True, "fuse": True}
    assert Mount("/x", "smb3", "//nas/x").network and Mount("/x", "9p", "share").network
    assert not Mount("/x", "btrfs", "/dev/sda2").network and not Mount("/x", "tmpfs", "tmpfs").network


def test_this_machines_own_mountinfo_parses_and_holds_the_root():
    text = Path("/proc/self/mountinfo").read_text()
    mounts = parse_mountinfo(text)
    assert len(mounts) == len(text.splitlines())
    assert mount_of("/", mounts) is not None


def test_mounts_whose_locks_stay_on_this_computer_name_their_option():
    lines = MOUNTINFO + (
        "80 25 0:71 / /srv/nolock rw,relatime - nfs nas:/vol rw,vers=3,nolock,proto=tcp,addr=10.0.0.2\n"
        "81 25 0:72 / /srv/local rw,relatime - nfs4 nas:/v rw,vers=4.1,local_lock=posix,addr=10.0.0.2\n"
        "82 25 0:73 / /srv/smb rw,relatime - cifs //nas/s rw,vers=3.0,nobrl,uid=1000\n")
    locks = {m.point: m.local_locks for m in parse_mountinfo(lines)}
    assert locks["/srv/nolock"] == "nolock" and locks["/srv/local"] == "local_lock=posix"
    assert locks["/srv/smb"] == "nobrl"
    assert locks["/home"] == "" and locks["/mnt/share"] == "" and locks["/tmp/fz/mnt"] == ""  # local_lock=none


def test_the_notice_on_an_nfs_home_mounted_nolock_warns_against_two_computers(tmp_path, monkeypatch):
    """The kernel's mountinfo stands in for an NFS mount at tmp_path (this machine can mount FUSE but not NFS; the
    FUSE mount is tests/integration/store/test_network_drive.py); the lock probe is real, in tmp_path."""
    from desktop_app.core.store.sqlite import network_drive

    home = tmp_path / "home"
    home.mkdir()
    fake = tmp_path / "mountinfo"
    fake.write_text(MOUNTINFO + f"90 25 0:80 / {home.resolve()} rw,relatime - nfs nas:/h rw,vers=3,nolock,addr=10.0.0.2"
                    "\n")
    monkeypatch.setattr(network_drive, "MOUNTINFO", fake)
    assert network_drive.journal_mode(home / "library.db") == "DELETE"
    notice = network_drive.network_notice(home / "library.db")
    assert notice.startswith(f"This library is on a network drive (nfs at {home.resolve()}): it uses a rollback")
    assert notice.endswith("Its locks stay on this computer (nolock): never open it from two computers at once.")
    assert network_drive.journal_mode(tmp_path / "elsewhere.db") == "WAL"  # not under the mount: the root's overlay
