#!/usr/bin/env bash
# Installs the Debian packages lockstep builds with, when any is missing. As root it runs
# apt-get; otherwise it prints the command to run and fails, so the build stops clearly.
set -u
need=()
have_pkg() { pkg-config --exists "$1" 2>/dev/null; }
command -v cc >/dev/null 2>&1 && command -v make >/dev/null 2>&1 || need+=(build-essential)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
have_pkg yaml-0.1 || need+=(libyaml-dev)
have_pkg ncursesw || need+=(libncurses-dev)
have_pkg cmocka || need+=(libcmocka-dev)
[ ${#need[@]} -eq 0 ] && exit 0
cmd="apt-get install -y --no-install-recommends ${need[*]}"
if [ "$(id -u)" -ne 0 ]; then
    echo "lockstep: missing build dependencies: ${need[*]}" >&2
    echo "run as root:  apt-get update && $cmd" >&2
    exit 1
fi
echo "lockstep: installing ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null 2>&1 || true
if ! $cmd >/dev/null; then
    echo "lockstep: '$cmd' failed" >&2
    exit 1
fi
