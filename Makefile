# One entry point for newcomers and CI. Every target is idempotent: a second run costs seconds.
PYTHON ?= python3.11
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.trove-installed
# torch first and pinned, so nothing pulls a CUDA build; set TORCH_INDEX to a CPU wheel index if yours has none.
TORCH_SPEC ?= torch==2.13.0
TORCH_INDEX ?=
# llama-cpp-python compiles on install; packaging/llama_wheel.sh builds it once per version and flags (portable AVX2
# on x86_64: the native build's AMX path crashes on AMX Xeons) and caches the wheel in ~/.cache/trove-wheels.
LLAMA_SPEC ?= llama-cpp-python==0.3.36

export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: system-deps setup run test lint bench package package-test package-upgrade-test clean

# The Debian/Ubuntu packages run and test need: silent when installed, installed where this user may (root, or sudo
# without a password), else one line naming the apt-get command and a stop before anything else runs.
system-deps:
	@PYTHON="$(PYTHON)" VENV="$(VENV)" bash packaging/system_deps.sh

setup: $(STAMP)

$(STAMP): pyproject.toml packaging/llama_wheel.sh
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX)) "$(TORCH_SPEC)"
	bash packaging/llama_wheel.sh $(PY) "$(LLAMA_SPEC)"
	$(PY) -m pip install -q -e ".[dev]"
	@touch $(STAMP)

run: system-deps setup
	$(VENV)/bin/trove gui --sample

# Static checks: ruff (pyflakes, pycodestyle, bugbear, imports, pyupgrade), mypy on the headless core, and a dead-code
# scan (vulture over the package, its tests and benches; framework hooks are listed in .ci/vulture_whitelist.py),
# then the size smells to look at (tests/unit/layout/test_sizes.py fails only past its ceilings).
lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(VENV)/bin/vulture desktop_app tests bench .ci/vulture_whitelist.py --min-confidence 60
	@$(PY) tests/unit/layout/test_sizes.py  # a report of large classes and functions (smells), never a failure

test: system-deps setup
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -p no:cacheprovider tests; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests"; exit 1; fi; exit $$rc

bench: setup
	$(PY) bench/index_keyword.py

# One-folder PyInstaller app in dist/trove/, dist/trove-<version>-linux-<arch>.tar.xz and, where dpkg-deb is,
# dist/trove_<version>_<arch>.deb (see packaging/README.md).
package: setup
	$(PY) -m pip install -q -e ".[package]"
	PY="$(abspath $(PY))" bash packaging/build.sh
	if command -v dpkg-deb >/dev/null; then bash packaging/linux/build_deb.sh; fi

# The size budget; the frozen app from the tarball in a minimal environment (index, search, ask, the window
# offscreen and on xcb under xvfb-run); then the .deb installed with apt-get, used, and removed (needs root).
package-test: package
	bash packaging/smoke_test.sh
	bash packaging/linux/deb_test.sh
	bash packaging/linux/deb_upgrade_test.sh "$(PREVIOUS)"

# The .deb upgrade path (install PREVIOUS, index, upgrade to this build, search): PREVIOUS is the previous release's
# .deb or its git ref (built in a worktree; as long as `make package`). The default is the last commit of the previous
# round (2026-12-05, SQLite schema 011, before every migration since), so the snapshot before a migration is exercised.
PREVIOUS ?= 2cbeb9f
package-upgrade-test: package
	bash packaging/linux/deb_upgrade_test.sh "$(PREVIOUS)"

clean:
	rm -rf build dist .pytest_cache
