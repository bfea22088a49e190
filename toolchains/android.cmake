# Android via the NDK's own toolchain file (NDK r19 or newer, clang + libc++).
#
#   ANDROID_NDK=/path/to/android-ndk cmake --preset android
#   cmake -S . -B build-android -DCMAKE_TOOLCHAIN_FILE=toolchains/android.cmake -DANDROID_NDK=/path/to/ndk
#
# ANDROID_ABI defaults to arm64-v8a and ANDROID_PLATFORM to android-24; override either with -D.
# Not built or tested by this project's CI (Debian ships no NDK).

if(NOT ANDROID_NDK)
  if(DEFINED ENV{ANDROID_NDK} AND NOT "$ENV{ANDROID_NDK}" STREQUAL "")
    set(ANDROID_NDK "$ENV{ANDROID_NDK}")
  else()
    message(FATAL_ERROR
      "toolchains/android.cmake: the Android NDK location is unknown.\n"
      "Pass -DANDROID_NDK=/path/to/android-ndk or set the ANDROID_NDK environment variable "
      "(the directory that contains build/cmake/android.toolchain.cmake).")
  endif()
endif()

file(TO_CMAKE_PATH "${ANDROID_NDK}" ANDROID_NDK)
get_filename_component(ANDROID_NDK "${ANDROID_NDK}" ABSOLUTE)
if(NOT EXISTS "${ANDROID_NDK}/build/cmake/android.toolchain.cmake")
  message(FATAL_ERROR
    "toolchains/android.cmake: ANDROID_NDK=${ANDROID_NDK} does not look like an NDK "
    "(no build/cmake/android.toolchain.cmake there; NDK r19 or newer is required).")
endif()

# try_compile projects re-read this file without the -D cache entries; the environment is shared
# with them, so hand the resolved location down that way.
set(ENV{ANDROID_NDK} "${ANDROID_NDK}")

if(NOT ANDROID_ABI)
  set(ANDROID_ABI arm64-v8a)
endif()
if(NOT ANDROID_PLATFORM)
  set(ANDROID_PLATFORM android-24)
endif()

include("${ANDROID_NDK}/build/cmake/android.toolchain.cmake")
