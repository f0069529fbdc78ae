#!/bin/sh
# Prints windowctl's version: the one place that decides it. CMake (cmake/version.cmake, at every
# build), scripts/image.sh (the image's label and tag) and scripts/cross-arm64.sh use it.
#
#   sh scripts/version.sh            # the version, e.g. 0.3.0 or 0.3.0-gabc1234
#   sh scripts/version.sh --commit   # the commit: 12 hex digits of HEAD
#
# The release is the file VERSION at the top of the repository (X.Y.Z): a release is the commit
# that sets it, and a clone needs no tags to know it. Git's description is added when there is one:
#   HEAD tagged vX.Y.Z (the same X.Y.Z)     0.3.0
#   3 commits past that tag                 0.3.0-3-gabc1234
#   no such tag (tags did not travel)       0.3.0-gabc1234       (the commit the build is from)
#   + uncommitted changes to tracked files: -dirty, e.g. 0.3.0-gabc1234-dirty
# Without .git (a source tarball, the image build's context): VERSION as it is, commit "unknown".
# Every form is a valid image tag. A .git that git cannot read (git missing, or a repository owned
# by another user: safe.directory) is an error, not a silent guess.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)

what=version
case "${1:-}" in
  "") ;;
  --commit) what=commit ;;
  -h | --help) sed -n '2,16p' "$0"; exit 0 ;;
  *) echo "version.sh: unknown argument: $1 (--commit or nothing)" >&2; exit 2 ;;
esac

release=$(cat "$root/VERSION" 2>/dev/null) || { echo "version.sh: $root/VERSION is missing" >&2; exit 1; }
if ! printf '%s\n' "$release" | grep -Eqx '[0-9]+\.[0-9]+\.[0-9]+'; then
  echo "version.sh: $root/VERSION holds \"$release\", not X.Y.Z" >&2
  exit 1
fi

if [ ! -e "$root/.git" ]; then
  if [ "$what" = commit ]; then echo unknown; else echo "$release"; fi
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

# The tag of this very release, if it travelled with the clone; else the commit.
if described=$(g describe --tags --match "v$release" --abbrev=7 HEAD 2>/dev/null); then
  version=${described#v}
else
  version="$release-g$(g rev-parse --short=7 HEAD)"
fi
echo "$version$dirty"
