// Arithmetic modulo the CRC32C polynomial, bit-reflected as the CRC stores it, for the constants of
// the hardware CRC32C kernels (crc32c_sse42.cpp, crc32c_vpclmul.cpp); evaluated at compile time.
#ifndef LDP_KERNELS_SRC_CRC32C_POLY_H
#define LDP_KERNELS_SRC_CRC32C_POLY_H

#include <cstddef>
#include <cstdint>

namespace ldp::kernels::detail {

// Multiplication of two bit-reflected polynomials modulo the reflected CRC32C polynomial.
constexpr uint32_t crc32c_multiply(uint32_t a, uint32_t b) {
  uint32_t product = 0;
  for (int i = 0; i < 32; ++i) {
    if ((a & 0x80000000u) != 0) product ^= b;  // reflected: the top bit is the x^0 coefficient
    a <<= 1;
    b = (b & 1) ? (b >> 1) ^ 0x82F63B78u : b >> 1;  // b * x
  }
  return product;
}

// x^n modulo the polynomial, reflected, by square-and-multiply.
constexpr uint32_t crc32c_x_pow(std::size_t n) {
  uint32_t result = 0x80000000u;  // 1
  uint32_t power = 0x40000000u;   // x
  for (; n != 0; n >>= 1) {
    if (n & 1) result = crc32c_multiply(result, power);
    power = crc32c_multiply(power, power);
  }
  return result;
}

}  // namespace ldp::kernels::detail

#endif
