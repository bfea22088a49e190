// A minimal non-owning view of contiguous memory (C++17 has no std::span). Device code receives
// every buffer as a span from its caller; nothing in ldpkit's device half owns memory.
#ifndef LDP_BASE_SPAN_H
#define LDP_BASE_SPAN_H

#include <cstddef>
#include <type_traits>

namespace ldp {

template <class T>
class span {
 public:
  using element_type = T;
  using value_type = std::remove_cv_t<T>;

  constexpr span() noexcept = default;
  constexpr span(T* data, std::size_t size) noexcept : data_(data), size_(size) {}
  template <std::size_t N>
  constexpr span(T (&array)[N]) noexcept : data_(array), size_(N) {}
  // A span<const T> is made from a span<T>.
  template <class U, class = std::enable_if_t<std::is_same_v<const U, T> && !std::is_same_v<U, T>>>
  constexpr span(span<U> other) noexcept : data_(other.data()), size_(other.size()) {}
  // Any contiguous container with data() and size() (arrays, and vectors on the server).
  template <
      class C,
      class = std::enable_if_t<!std::is_array_v<C> && std::is_convertible_v<decltype(std::declval<C&>().data()), T*>>,
      class = decltype(std::declval<C&>().size())>
  constexpr span(C& container) noexcept : data_(container.data()), size_(container.size()) {}

  constexpr T* data() const noexcept { return data_; }
  constexpr std::size_t size() const noexcept { return size_; }
  constexpr std::size_t size_bytes() const noexcept { return size_ * sizeof(T); }
  constexpr bool empty() const noexcept { return size_ == 0; }
  constexpr T& operator[](std::size_t i) const noexcept { return data_[i]; }
  constexpr T* begin() const noexcept { return data_; }
  constexpr T* end() const noexcept { return data_ + size_; }

  // Unchecked: callers check lengths first and return a status when they do not fit.
  constexpr span first(std::size_t n) const noexcept { return {data_, n}; }
  constexpr span subspan(std::size_t offset) const noexcept { return {data_ + offset, size_ - offset}; }
  constexpr span subspan(std::size_t offset, std::size_t n) const noexcept { return {data_ + offset, n}; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace ldp

#endif
