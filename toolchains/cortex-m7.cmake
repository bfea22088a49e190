# Bare-metal Arm Cortex-M7 with double-precision FPU (hard-float ABI), e.g. STM32F7/H7, i.MX RT.
# Needs: gcc-arm-none-eabi, libnewlib-arm-none-eabi, libstdc++-arm-none-eabi-newlib.

set(LDP_MCU_PROCESSOR cortex-m7)
set(LDP_MCU_FLAGS "-mcpu=cortex-m7 -mthumb -mfloat-abi=hard -mfpu=fpv5-d16")

include("${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi-common.cmake")
