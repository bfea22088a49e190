# Shared body of the bare-metal Cortex-M toolchains (GNU Arm Embedded, Debian gcc-arm-none-eabi).
#
# The including file sets, before include():
#   LDP_MCU_PROCESSOR  value for CMAKE_SYSTEM_PROCESSOR, e.g. cortex-m4
#   LDP_MCU_FLAGS      core/ISA/FPU flags, e.g. "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=..."
#
# As with every toolchain file this one is read several times per configure, so it only assigns.

foreach(_ldp_var IN ITEMS LDP_MCU_PROCESSOR LDP_MCU_FLAGS)
  if(NOT ${_ldp_var})
    message(FATAL_ERROR "arm-none-eabi-common.cmake: ${_ldp_var} must be set by the including toolchain file")
  endif()
endforeach()

set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR ${LDP_MCU_PROCESSOR})

set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)

# There is no OS to link a test executable against during compiler detection: let try_compile
# stop at a static library.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(_ldp_mcu_common "${LDP_MCU_FLAGS} -ffunction-sections -fdata-sections")
set(CMAKE_C_FLAGS_INIT "${_ldp_mcu_common}")
set(CMAKE_ASM_FLAGS_INIT "${LDP_MCU_FLAGS}")
set(CMAKE_CXX_FLAGS_INIT "${_ldp_mcu_common} -fno-exceptions -fno-rtti -fno-threadsafe-statics")
unset(_ldp_mcu_common)

# newlib-nano with stub syscalls (nosys); unreferenced sections are dropped at link time so the
# firmware image only holds what is actually reachable.
set(CMAKE_EXE_LINKER_FLAGS_INIT "--specs=nano.specs --specs=nosys.specs -Wl,--gc-sections")

set(LDP_BARE_METAL ON CACHE BOOL "")

# Debian's arm-none-eabi newlib and libstdc++ live under /usr/lib/arm-none-eabi.
set(CMAKE_FIND_ROOT_PATH /usr/lib/arm-none-eabi)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Binutils used by the firmware checks (image size, symbol scan). Cached, so later
# find_program(CMAKE_NM ...) calls in CMake's own modules keep these.
find_program(CMAKE_SIZE arm-none-eabi-size)
find_program(CMAKE_NM arm-none-eabi-nm)
