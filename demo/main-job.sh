#!/bin/sh
# main-job.sh BUILD — the main job on the built-in default config.
set -eu
build=$1
W="$build/warden"
unset WARDEN_CONFIG
export XDG_CONFIG_HOME="$build/demo-home/config"
echo "== warden --version"
"$W" --version
