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
# Optional: tmux lets the tests drive the debugger's terminal screen (they skip without it);
# installed as root when it can be, and never a reason to stop.
if ! command -v tmux >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends tmux \
            >/dev/null 2>&1 || { apt-get update -qq >/dev/null 2>&1 &&
            DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends tmux \
            >/dev/null 2>&1; } ||
            echo "lockstep: could not install tmux (optional: the terminal-screen tests skip)" >&2
    else
        echo "lockstep: optional for the tests: tmux (the terminal-screen tests skip without it)" >&2
    fi
fi
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
