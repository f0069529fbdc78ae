# Writes generated/version.h (kVersion, kCommit) from src/version.h.in. Run by CMakeLists.txt at
# configure time and again at every build (the windowctl_version target), so that a new commit,
# a new tag or an edit is seen without re-running cmake; the file is rewritten only when its
# contents change, so an unchanged version recompiles and relinks nothing.
#
#   cmake -DSOURCE_DIR=... -DOUTPUT=.../version.h [-DVERSION=...] [-DCOMMIT=...] -P version.cmake
#
# With a .git in SOURCE_DIR: scripts/version.sh decides both (the file VERSION and git's
# description; see there), and VERSION / COMMIT are ignored. Without one (the image build's
# context, a tarball): VERSION and COMMIT (the cache variables WINDOWCTL_VERSION /
# WINDOWCTL_COMMIT), else the file VERSION and unknown.
foreach(var SOURCE_DIR OUTPUT)
  if(NOT ${var})
    message(FATAL_ERROR "version.cmake: -D${var}=... is required")
  endif()
endforeach()

if(EXISTS "${SOURCE_DIR}/.git")
  foreach(what version commit)
    set(args)
    if(what STREQUAL "commit")
      set(args --commit)
    endif()
    execute_process(COMMAND sh "${SOURCE_DIR}/scripts/version.sh" ${args}
      OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc
      OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_STRIP_TRAILING_WHITESPACE)
    if(NOT rc EQUAL 0 OR out STREQUAL "")
      message(FATAL_ERROR "windowctl: cannot tell the ${what} (scripts/version.sh: ${err}).\n"
        "Fix git, or build from a tree without .git with -DWINDOWCTL_VERSION=... -DWINDOWCTL_COMMIT=...")
    endif()
    if(err)
      message(WARNING "${err}")
    endif()
    set(_${what} "${out}")
  endforeach()
else()
  set(_version "${VERSION}")
  set(_commit "${COMMIT}")
  if(_version STREQUAL "")
    file(STRINGS "${SOURCE_DIR}/VERSION" _version LIMIT_COUNT 1)
  endif()
  if(_commit STREQUAL "")
    set(_commit unknown)
  endif()
endif()

# They end up in a C++ string literal and in an image tag: no quotes, backslashes or spaces.
foreach(what version commit)
  if(NOT _${what} MATCHES "^[0-9A-Za-z][0-9A-Za-z._+-]*$")
    message(FATAL_ERROR "windowctl: invalid ${what} \"${_${what}}\"")
  endif()
endforeach()

set(WINDOWCTL_VERSION "${_version}")
set(WINDOWCTL_COMMIT "${_commit}")
# configure_file leaves OUTPUT (and its timestamp) alone when the text is the same.
configure_file("${SOURCE_DIR}/src/version.h.in" "${OUTPUT}" @ONLY)
if(PRINT)
  message(STATUS "windowctl ${WINDOWCTL_VERSION} (commit ${WINDOWCTL_COMMIT})")
endif()
