# Sourced (not run) by the scripts that build a static library from Debian's own source package
# for windowctl's release binary: scripts/openssl.sh and scripts/yaml-cpp.sh. One implementation
# of what they share: the arguments, the compiler, the cache and its lock, the private apt state,
# the choice and download of the source version, and the pruning of old builds. The caller
# defines die and note (its own message prefix) before sourcing this file.
#
# Source: the newest version of the source package in this machine's own apt sources (the deb
# lines of /etc/apt/sources.list{,.d/*}, read as deb-src into a private apt state under the
# cache: the system's apt configuration is not touched). apt verifies what it downloads: the
# suite's Release file against Debian's archive keys (the sources' Signed-By), the .dsc and
# tarballs against the checksums in that Release's signed Sources index; dpkg-source checks the
# tarballs against the .dsc again and applies Debian's patches. A version whose files the mirror
# does not have is skipped with a warning, for the next newest (the caller's pin variable pins
# one). The source indexes are refreshed when older than a day.

# debsrc_args DEFAULT_CACHE "$@": sets arch, cache and copy_to from --arch, --cache, --copy-to
# (-h prints the caller's header comment, lines 2 to $debsrc_help_lines).
debsrc_args() {
  build_arch=$(dpkg --print-architecture)
  arch=$build_arch
  cache=$1
  copy_to=""
  shift
  while [ $# -gt 0 ]; do
    case "$1" in
      --arch) [ $# -ge 2 ] || die "--arch needs a value"; arch=$2; shift 2 ;;
      --arch=*) arch=${1#*=}; shift ;;
      --cache) [ $# -ge 2 ] || die "--cache needs a value"; cache=$2; shift 2 ;;
      --cache=*) cache=${1#*=}; shift ;;
      --copy-to) [ $# -ge 2 ] || die "--copy-to needs a value"; copy_to=$2; shift 2 ;;
      --copy-to=*) copy_to=${1#*=}; shift ;;
      -h | --help) sed -n "2,${debsrc_help_lines}p" "$0"; exit 0 ;;
      *) die "unknown argument: $1 (see --help)" ;;
    esac
  done
  case "$arch" in
    amd64 | arm64) ;;
    *) die "unsupported architecture $arch (amd64 or arm64)" ;;
  esac
  # The compiler's prefix: none natively, Debian's cross compiler's for another architecture.
  cross=""
  if [ "$arch" != "$build_arch" ]; then
    command -v dpkg-architecture >/dev/null || die "dpkg-architecture not found: apt-get install dpkg-dev"
    cross="$(dpkg-architecture -a"$arch" -qDEB_HOST_GNU_TYPE 2>/dev/null)-"
  fi
}

# debsrc_lock: makes the cache folder (absolute path in $cache) and holds its lock until exit, so
# that two builds of one cache do not race.
debsrc_lock() {
  mkdir -p "$cache"
  cache=$(cd "$cache" && pwd)
  exec 9>"$cache/.lock"
  flock 9
}

# debsrc_apt: the private apt state for this machine's deb sources as deb-src (APT_OPTS, apt_dir),
# its indexes refreshed when older than a day.
debsrc_sources_text() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    # One-line format: each "deb" line once more as "deb-src".
    awk '$1 == "deb" { $1 = "deb-src"; print }' "$f"
  done
}
debsrc_sources_deb822() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    # deb822: each enabled stanza whose Types hold "deb", with Types: deb-src.
    awk 'BEGIN { RS = ""; ORS = "\n\n" }
      {
        n = split($0, lines, "\n"); out = ""; types = 0; off = 0
        for (i = 1; i <= n; i++) {
          line = lines[i]
          if (line ~ /^[Tt]ypes:/) { if (line ~ /[ \t]deb([ \t]|$)/) types = 1; line = "Types: deb-src" }
          if (line ~ /^[Ee]nabled:[ \t]*[Nn]o/) off = 1
          out = out line "\n"
        }
        if (types && !off) print out
      }' "$f"
  done
}
debsrc_apt() {
  local list_text deb822_text apt_id stamp
  list_text=$(debsrc_sources_text)
  deb822_text=$(debsrc_sources_deb822)
  [ -n "$list_text$deb822_text" ] || die "no deb entries in /etc/apt/sources.list{,.d/*}"
  apt_id=$(printf '%s\n--\n%s\n' "$list_text" "$deb822_text" | sha256sum | cut -c1-12)
  apt_dir="$cache/apt-$apt_id"
  mkdir -p "$apt_dir/etc/sources.list.d" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
  printf '%s\n' "$list_text" >"$apt_dir/etc/sources.list"
  printf '%s\n' "$deb822_text" >"$apt_dir/etc/sources.list.d/deb-src.sources"
  APT_OPTS=(
    -o Dir::Etc::SourceList="$apt_dir/etc/sources.list"
    -o Dir::Etc::SourceParts="$apt_dir/etc/sources.list.d"
    -o Dir::State::Lists="$apt_dir/lists"
    -o Dir::Cache="$apt_dir/cache"
    # The cache belongs to whoever runs this (root in CI and in image builds): no _apt sandbox.
    -o APT::Sandbox::User="$(id -un)"
    -o Acquire::Languages=none
  )
  stamp="$apt_dir/updated"
  if [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +1440 2>/dev/null)" ]; then
    note "apt-get update (deb-src of this machine's sources, private state in $apt_dir)"
    if ! apt-get "${APT_OPTS[@]}" -qq update >"$apt_dir/update.log" 2>&1; then
      # A source without deb-src (a third-party repository) fails its part only.
      grep -E '^(E|W):' "$apt_dir/update.log" | sed "s/^/$debsrc_name: apt: /" >&2 || true
    fi
    rm -f "$apt_dir/resolved"
    touch "$stamp"
  fi
}

# debsrc_fetch PACKAGE PIN: sets version (PIN if not empty, else the newest downloadable) and
# src_dir; the source package's files are then in $src_dir/$version. Older downloads go.
debsrc_fetch_one() {  # PACKAGE VERSION
  local d="$src_dir/$2"
  mkdir -p "$d"
  (cd "$d" && apt-get "${APT_OPTS[@]}" -qq source --download-only "$1=$2") >"$d.log" 2>&1
}
debsrc_fetch() {
  local package=$1 pin=$2 resolved v i d versions sorted
  src_dir="$cache/src"
  resolved=$(cat "$apt_dir/resolved" 2>/dev/null || true)
  if [ -n "$pin" ]; then
    version=$pin
    [ "$resolved" = "$version" ] || { debsrc_fetch_one "$package" "$version" || { sed 's/^/  /' "$src_dir/$version.log" >&2; die "cannot download $package $version (pinned)"; }; }
  elif [ -n "$resolved" ] && [ -f "$src_dir/$resolved/.fetched" ]; then
    version=$resolved
  else
    mapfile -t versions < <(apt-cache "${APT_OPTS[@]}" showsrc "$package" 2>/dev/null \
      | awk -v want="$package" '/^Package: / { p = $2 } /^Version: / && p == want { print $2 }' | sort -u)
    [ ${#versions[@]} -gt 0 ] || die "apt knows no source package $package (log: $apt_dir/update.log)"
    # Newest first (Debian version order).
    sorted=()
    for v in "${versions[@]}"; do
      i=0
      while [ $i -lt ${#sorted[@]} ] && dpkg --compare-versions "${sorted[$i]}" gt "$v"; do i=$((i + 1)); done
      sorted=("${sorted[@]:0:$i}" "$v" "${sorted[@]:$i}")
    done
    version=""
    for v in "${sorted[@]}"; do
      if debsrc_fetch_one "$package" "$v"; then
        version=$v
        break
      fi
      note "warning: $package $v is in the source index but its files could not be downloaded:"
      grep -E '^(E|W):' "$src_dir/$v.log" | head -3 | sed 's/^/  /' >&2 || true
      note "warning: trying the next newest version"
    done
    [ -n "$version" ] || die "no version of the $package source package could be downloaded"
    [ "$version" = "${sorted[0]}" ] \
      || note "warning: building $package $version, not the newest in the index (${sorted[0]}): its source is not on the mirror"
  fi
  touch "$src_dir/$version/.fetched"
  echo "$version" >"$apt_dir/resolved"
  for d in "$src_dir"/*/; do
    [ "$d" = "$src_dir/$version/" ] || rm -rf "${d%/}" "${d%/}.log"
  done
}

# debsrc_unpack PACKAGE WHAT COMPILER_VERSION: the fetched source of PACKAGE unpacked into a fresh
# $work/src (dpkg-source checks the tarballs against the .dsc's checksums and applies Debian's
# patches; the .dsc's own signature is the uploader's, and what vouches for it is apt's signed
# index), with $work, $log (emptied) and $start set for the build that follows.
debsrc_unpack() {
  local package=$1 what=$2 compiler=$3 dsc
  dsc=$(ls "$src_dir/$version/${package}"_*.dsc 2>/dev/null | head -1)
  [ -n "$dsc" ] || die "no .dsc in $src_dir/$version"
  work="$cache/work-$arch"
  rm -rf "$work" "$prefix.tmp"
  mkdir -p "$work"
  log="$cache/build-$arch.log"
  : >"$log"
  start=$SECONDS
  note "building $what $version for $arch ($compiler); log: $log"
  dpkg-source -x "$dsc" "$work/src" >>"$log" 2>&1 || { tail -20 "$log" >&2; die "dpkg-source -x $dsc failed"; }
}

# debsrc_prune PREFIX: marks PREFIX as used now and removes the builds of other keys for this
# architecture that no run has used for 7 days. Not at once: work trees of other branches may
# share the cache with another recipe, and each would otherwise delete the other's build (which
# its CMake cache still points at) and rebuild its own at every configure.
debsrc_prune() {
  local prefix=$1 d
  touch "$prefix/.used"
  for d in "$cache/$arch"-*/; do
    [ "$d" != "$prefix/" ] || continue
    # (A build made before there were .used marks counts from its BUILD-INFO.)
    [ -n "$(find "${d%/}" -maxdepth 1 \( -name .used -o -name BUILD-INFO \) -mmin -10080 2>/dev/null)" ] \
      || rm -rf "${d%/}"
  done
}

# debsrc_copy_to PREFIX: with --copy-to, a copy of PREFIX there (the Dockerfile's fixed path).
debsrc_copy_to() {
  [ -n "$copy_to" ] || return 0
  rm -rf "$copy_to"
  mkdir -p "$(dirname "$copy_to")"
  cp -a "$1" "$copy_to"
  rm -f "$copy_to/.used"
}
