# Cross-compiles windowctl for 64-bit ARM (linux/arm64) with Debian's cross toolchain:
#
#   apt-get install crossbuild-essential-arm64          # aarch64-linux-gnu-g++
#   cmake -S . -B build-arm64 -G Ninja -DCMAKE_BUILD_TYPE=MinSizeRel \
#         -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
#
# The header-only dependencies (nlohmann-json, spdlog, fmt, doctest, CLI11) are the build
# machine's own packages: /usr/include is on the cross compiler's search path. OpenSSL and
# yaml-cpp are those that CMake has scripts/openssl.sh and scripts/yaml-cpp.sh --arch arm64 build
# from Debian's source packages with this cross compiler (-DWINDOWCTL_OPENSSL=system and
# -DWINDOWCTL_YAML_CPP=system link the arm64 packages libssl-dev:arm64 and libyaml-cpp-dev:arm64
# instead, after dpkg --add-architecture arm64).
#
# WINDOWCTL_CROSS_ROOT (optional, for the system libraries): a folder into which arm64 -dev
# packages were unpacked with `dpkg-deb -x`, whose libraries are found before the system's
# (libyaml-cpp-dev is not "Multi-Arch: same": installing libyaml-cpp-dev:arm64 would remove the
# build machine's native libyaml-cpp-dev). Its headers are not searched.
#
# If qemu-aarch64-static (Debian's qemu-user-static) is installed, ctest runs the arm64 test
# binary under it. One case fails there through no fault of the binary (qemu-user cannot report
# a failed exec through posix_spawn); scripts/cross-arm64.sh runs the tests without it.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(WINDOWCTL_TRIPLET aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${WINDOWCTL_TRIPLET}-gcc)
set(CMAKE_CXX_COMPILER ${WINDOWCTL_TRIPLET}-g++)
set(CMAKE_LIBRARY_ARCHITECTURE ${WINDOWCTL_TRIPLET})

# try_compile projects read the toolchain file again; hand them the variable too.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES WINDOWCTL_CROSS_ROOT)

# Debian's cross gcc searches /usr/include but not the multiarch folder where arm64 -dev
# packages put their architecture-specific headers (openssl/configuration.h). -idirafter keeps
# it behind the cross toolchain's own headers.
set(_windowctl_flags "-idirafter /usr/include/${WINDOWCTL_TRIPLET}")
if(WINDOWCTL_CROSS_ROOT)
  list(PREPEND CMAKE_LIBRARY_PATH ${WINDOWCTL_CROSS_ROOT}/usr/lib/${WINDOWCTL_TRIPLET})
endif()
set(CMAKE_C_FLAGS_INIT "${_windowctl_flags}")
set(CMAKE_CXX_FLAGS_INIT "${_windowctl_flags}")

# Programs (cmake's helpers) come from the build machine; libraries and headers for the target
# are found through the multiarch folders above.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)

find_program(WINDOWCTL_QEMU NAMES qemu-aarch64-static qemu-aarch64)
if(WINDOWCTL_QEMU)
  # -L: the arm64 dynamic loader and libraries of Debian's cross toolchain (the test binary is
  # dynamically linked; windowctl itself is static and needs no -L).
  set(CMAKE_CROSSCOMPILING_EMULATOR ${WINDOWCTL_QEMU} -L /usr/${WINDOWCTL_TRIPLET})
endif()
