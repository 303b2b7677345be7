// Small text helpers shared by the parsers of user-written strings (kernel
// signatures, inline-asm constraints) and of the PTX the back end emits.
#pragma once

#include <cctype>
#include <string_view>

namespace tessera {

// `s` without leading and trailing white space (as std::isspace has it).
inline std::string_view trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

}  // namespace tessera
