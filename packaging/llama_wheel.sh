#!/usr/bin/env bash
# Installs llama-cpp-python from a wheel built once per (version, build flags, Python) and kept in
# ~/.cache/trove-wheels/<key>/ (TROVE_WHEEL_CACHE overrides). pip's own wheel cache is keyed by the sdist alone, so
# it would hand back a wheel built with other CMAKE_ARGS; this cache is keyed by the flags too.
#
# Why not the default native build: on x86_64 llama.cpp's -march=native build enables its AMX matmul path on CPUs
# that have AMX (Sapphire Rapids and later Xeons), and on this project's CI machines that path segfaults in
# ggml_backend_amx_mul_mat on the first real generation (SmolLM2 and Qwen2.5 alike). An AVX2/FMA build is portable
# (it is also what packaging/build.sh freezes into the app, so the app runs on any x86-64-v3 CPU), and it is the
# path every test exercises. Elsewhere (aarch64) the default build is kept.
# Usage: packaging/llama_wheel.sh PYTHON SPEC   (e.g. .venv/bin/python "llama-cpp-python==0.3.36")
set -euo pipefail
PY=$1
SPEC=$2
FLAGS=${LLAMA_CMAKE_ARGS-}
if [ -z "${LLAMA_CMAKE_ARGS+set}" ] && [ "$(uname -m)" = x86_64 ]; then
  FLAGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON"
  FLAGS="$FLAGS -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
fi
tag=$("$PY" -c 'import sys, platform; print(sys.implementation.cache_tag, platform.machine())')
key=$(printf '%s|%s|%s' "$SPEC" "$FLAGS" "$tag" | sha256sum | cut -c1-16)
dir=${TROVE_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/trove-wheels}/$key
if ! compgen -G "$dir/llama_cpp_python-*.whl" >/dev/null; then
  echo "building $SPEC once into $dir (CMAKE_ARGS=$FLAGS); this takes several minutes"
  mkdir -p "$(dirname "$dir")"
  tmp=$(mktemp -d "$dir.partial.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  CMAKE_ARGS="$FLAGS" "$PY" -m pip wheel -q --no-deps --no-cache-dir "$SPEC" -w "$tmp"
  rm -rf "$dir"
  mv "$tmp" "$dir"  # a killed build leaves only a .partial folder, never a half wheel under the key
  trap - EXIT
fi
wheel=$(compgen -G "$dir/llama_cpp_python-*.whl" | head -n1)
want=$(basename "$wheel" | cut -d- -f2)
have=$("$PY" -m pip show llama-cpp-python 2>/dev/null | sed -n "s/^Version: //p" || true)
stamp=$("$PY" -c 'import pathlib, sys; print(pathlib.Path(sys.prefix, ".trove-llama-key"))')
if [ "$have" != "$want" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$key" ]; then
  "$PY" -m pip install -q --force-reinstall --no-deps "$wheel"
  echo "$key" >"$stamp"
fi
