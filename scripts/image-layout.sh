# Sourced by scripts/image.sh and scripts/registry-test.sh: what the image's one layer holds,
# besides /usr/share/zoneinfo and the folders on the way. `grep -x "${allowed[@]}"` matches
# every permitted path; each doc_files entry must be present under $doc.
doc=usr/share/doc/windowctl
doc_files=(
  LICENSE NOTICE packages.txt
  copyright/glibc copyright/gcc copyright/openssl copyright/yaml-cpp copyright/nlohmann-json
  copyright/spdlog copyright/fmt copyright/cli11 copyright/tzdata
  common-licenses/LGPL-2.1 common-licenses/GPL-3
)
allowed=(-e windowctl -e usr -e usr/share -e 'usr/share/zoneinfo\(/.*\)\{0,1\}'
  -e usr/share/doc -e "$doc" -e "$doc/copyright" -e "$doc/common-licenses")
for f in "${doc_files[@]}"; do allowed+=(-e "$doc/$f"); done
