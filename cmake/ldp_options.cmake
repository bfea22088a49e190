# Compiler flags shared by every ldpkit target, and the device-side rule.

if(LDP_BARE_METAL)
  set(LDP_SIMD OFF CACHE BOOL "" FORCE)  # xsimd has no Cortex-M backend (docs/performance.md 9, trap 7)
  set(LDP_BUILD_TESTS OFF CACHE BOOL "" FORCE)
  set(LDP_BUILD_BENCH OFF CACHE BOOL "" FORCE)
  set(LDP_BUILD_TOOLS OFF CACHE BOOL "" FORCE)
endif()

set(LDP_CONFIG_DRBG_BLOCKS 32 CACHE STRING
    "ChaCha20 blocks buffered per DRBG, at least 32 (lib/base/include/ldp/base/config.h)")

add_library(ldp_warnings INTERFACE)
if(MSVC)
  target_compile_options(ldp_warnings INTERFACE /W4 $<$<BOOL:${LDP_WERROR}>:/WX>)
else()
  target_compile_options(ldp_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                         -Wno-sign-conversion $<$<BOOL:${LDP_WERROR}>:-Werror>)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(arm|cortex)")
    # GCC notes that an ABI change of GCC 7.1 affects span-by-value; we build everything together.
    target_compile_options(ldp_warnings INTERFACE -Wno-psabi)
  endif()
endif()

if(LDP_SANITIZE)
  add_compile_options(-fsanitize=${LDP_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${LDP_SANITIZE})
endif()

# The device contract (docs/architecture.md): no exceptions, no RTTI, no heap. The flags are applied to
# every device-side module on every target, so a host build already proves they compile that way.
function(ldp_device_module target)
  if(MSVC)
    target_compile_options(${target} PRIVATE /GR- /EHs-c-)
  else()
    target_compile_options(${target} PRIVATE -fno-exceptions -fno-rtti)
  endif()
  target_link_libraries(${target} PRIVATE ldp_warnings)
  target_compile_definitions(${target} PUBLIC $<$<BOOL:${LDP_BARE_METAL}>:LDP_BARE_METAL>
                                              LDP_CONFIG_SIMD=$<BOOL:${LDP_SIMD}>
                                              LDP_CONFIG_DRBG_BLOCKS=${LDP_CONFIG_DRBG_BLOCKS})
endfunction()
