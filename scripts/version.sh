#!/bin/sh
# Prints windowctl's version, from git: the one place that decides it. CMake (cmake/version.cmake,
# at every build), scripts/image.sh (the image's label and tag) and scripts/cross-arm64.sh use it.
#
#   sh scripts/version.sh            # the version, e.g. 0.2.0
#   sh scripts/version.sh --commit   # the commit: 12 hex digits of HEAD
#
# Release tags are vX.Y.Z (annotated or lightweight):
#   HEAD on a tag v0.2.0             0.2.0
#   3 commits past it                0.2.0-3-gabc1234      (git describe, without the v)
#   no vX.Y.Z tag reachable          0.0.0-dev             (a shallow clone without tags too)
#   + uncommitted changes to tracked files: -dirty, e.g. 0.2.0-dirty, 0.0.0-dev-dirty
# Every form is a valid image tag. Without .git (a source tarball, the image build's context)
# there is nothing to describe: 0.0.0-dev and "unknown"; the image build passes both in instead
# (Dockerfile: VERSION, REVISION). A .git that git cannot read (git missing, or a repository
# owned by another user: safe.directory) is an error, not a silent 0.0.0-dev.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
fallback_version=0.0.0-dev

what=version
case "${1:-}" in
  "") ;;
  --commit) what=commit ;;
  -h | --help) sed -n '2,17p' "$0"; exit 0 ;;
  *) echo "version.sh: unknown argument: $1 (--commit or nothing)" >&2; exit 2 ;;
esac

if [ ! -e "$root/.git" ]; then
  if [ "$what" = commit ]; then echo unknown; else echo "$fallback_version"; fi
  exit 0
fi
fail() { echo "version.sh: $root has a .git but $*" >&2; exit 1; }
command -v git >/dev/null 2>&1 || fail "git is not installed"
# Only this repository: never one that happens to contain the source folder.
g() { git -C "$root" "$@"; }
top=$(g rev-parse --show-toplevel 2>&1) || fail "git cannot read it: $top"
[ "$top" -ef "$root" ] || fail "git's work tree is $top"

commit=$(g rev-parse --short=12 HEAD 2>/dev/null) || fail "it has no commit yet"
if [ "$what" = commit ]; then
  echo "$commit"
  exit 0
fi

# Uncommitted changes to tracked files, staged or not (untracked files do not count, as with
# git describe --dirty). GIT_OPTIONAL_LOCKS=0: a read-only look that never takes .git/index.lock
# (describe --dirty would, at every build, under someone's git commit).
changes=$(GIT_OPTIONAL_LOCKS=0 g status --porcelain --untracked-files=no 2>&1) || fail "git status failed: $changes"
dirty=""
[ -z "$changes" ] || dirty="-dirty"

if described=$(g describe --tags --match 'v[0-9]*.[0-9]*.[0-9]*' --abbrev=7 HEAD 2>/dev/null); then
  version=${described#v}
else
  version=$fallback_version
  if [ "$(g rev-parse --is-shallow-repository)" = true ]; then
    echo "version.sh: warning: a shallow clone, no vX.Y.Z tag in reach: $version$dirty (git fetch --unshallow --tags)" >&2
  fi
fi
echo "$version$dirty"
