#!/bin/sh
# The one install recipe, used by both the Dockerfile and the Makefile (`make test`), so the
# image installs exactly what the tests ran against.
#
#   docker/install.sh PIP EXTRAS [DEBIAN_PACKAGES...]
#
# PIP     the pip to install with (the image's `pip`, or the Makefile's .venv/bin/pip)
# EXTRAS  comma-separated extras of the package: "postgres", "dev,spark", ... ("" for none)
# DEBIAN_PACKAGES are installed with apt-get when any is missing (sudo when not root).
# EMBUCKET_EDITABLE=1 installs in editable mode (the Makefile's development install).
set -eu

pip=$1
extras=$2
shift 2

if [ "$#" -gt 0 ] && ! dpkg -s "$@" >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@"
fi

target="."
[ -n "$extras" ] && target=".[$extras]"
if [ "${EMBUCKET_EDITABLE:-0}" = 1 ]; then
    "$pip" install -q -e "$target"
else
    "$pip" install -q "$target"
fi
