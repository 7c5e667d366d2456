#pragma once
// What every model-file parser (URDF, MJCF, SDFormat) reports: an error that
// names the file, line and element at fault, and warnings of the same shape
// for what the file holds but Tern does not use. Also the number-list reader
// they share.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tern {

// Bad input in a model file: the message is "<file>:<line>: <element>:
// <message>". UrdfError, MjcfError and SdfError derive from it, so one catch
// handles every format.
class ModelParseError : public std::runtime_error {
 public:
  ModelParseError(const std::string& file, int line, const std::string& element,
                  const std::string& message);
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& element() const { return element_; }

 private:
  std::string file_;
  int line_;
  std::string element_;
};

// Something the parser kept, changed or left out, with where it was written.
struct ModelWarning {
  std::string file;
  int line{0};
  std::string element;  // e.g. "<gazebo>" or "<joint name='j'>/<calibration>"
  std::string message;
  // "<file>:<line>: <element>: <message>".
  std::string ToString() const;
};

// Parses a whitespace-separated list of finite numbers (a leading '+' is
// allowed) into *out. Returns false and the offending token in *bad if one
// is not a finite number.
bool ParseNumberList(const char* text, std::vector<double>* out,
                     std::string* bad);

// Model files larger than this are refused (a model of 64 MiB of XML is a
// mistake, e.g. a log file or /dev/zero named as a model or <include>).
inline constexpr std::uintmax_t kMaxModelFileBytes = 64u << 20;

// The contents of the model file at `path`: only a regular file (not a
// folder, /dev/zero or a pipe) of at most max_bytes is read. Otherwise, or
// if it cannot be read, returns false with the reason in *error (naming
// nothing: the caller says which file and element).
bool ReadModelFileText(const std::string& path, std::string* text,
                       std::string* error,
                       std::uintmax_t max_bytes = kMaxModelFileBytes);

}  // namespace tern
