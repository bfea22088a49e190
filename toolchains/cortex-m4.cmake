# Bare-metal Arm Cortex-M4F (single-precision FPU, hard-float ABI), e.g. STM32F4, nRF52.
# Needs: gcc-arm-none-eabi, libnewlib-arm-none-eabi, libstdc++-arm-none-eabi-newlib.

set(LDP_MCU_PROCESSOR cortex-m4)
set(LDP_MCU_FLAGS "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")

include("${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi-common.cmake")
