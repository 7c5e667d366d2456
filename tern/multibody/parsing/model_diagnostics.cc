#include "tern/multibody/parsing/model_diagnostics.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>

namespace tern {

ModelParseError::ModelParseError(const std::string& file, int line,
                                 const std::string& element,
                                 const std::string& message)
    : std::runtime_error(
          fmt::format("{}:{}: {}: {}", file, line, element, message)),
      file_(file),
      line_(line),
      element_(element) {}

bool ReadModelFileText(const std::string& path, std::string* text,
                       std::string* error, std::uintmax_t max_bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    *error =
        fs::exists(path, ec) ? "not a regular file" : "cannot open the file";
    return false;
  }
  const std::uintmax_t bytes = fs::file_size(path, ec);
  if (ec) {
    *error = "cannot read the file size: " + ec.message();
    return false;
  }
  if (bytes > max_bytes) {
    *error = fmt::format("{} bytes, more than the {} a model file may have",
                         bytes, max_bytes);
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot open the file";
    return false;
  }
  text->assign(static_cast<std::size_t>(bytes), '\0');
  in.read(text->data(), static_cast<std::streamsize>(bytes));
  text->resize(static_cast<std::size_t>(in.gcount()));
  return true;
}

std::string ModelWarning::ToString() const {
  return fmt::format("{}:{}: {}: {}", file, line, element, message);
}

bool ParseNumberList(const char* text, std::vector<double>* out,
                     std::string* bad) {
  // A hand-rolled split and std::from_chars: an istringstream per attribute
  // was a fifth of the URDF parser's time (bench/urdf_load).
  out->clear();
  const char* p = text;
  const auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
           c == '\v';
  };
  while (true) {
    while (*p != '\0' && space(*p)) ++p;
    if (*p == '\0') break;
    const char* end = p;
    while (*end != '\0' && !space(*end)) ++end;
    const char* first = (*p == '+' && end - p > 1) ? p + 1 : p;
    double x = 0;
    const auto r = std::from_chars(first, end, x);
    if (r.ec != std::errc() || r.ptr != end || !std::isfinite(x)) {
      *bad = std::string(p, end);
      return false;
    }
    out->push_back(x);
    p = end;
  }
  return true;
}

}  // namespace tern
