#pragma once
// What every model-file parser (URDF, MJCF, SDFormat) reports: an error that
// names the file, line and element at fault, and warnings of the same shape
// for what the file holds but Tern does not use. Also the number-list reader
// they share.
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

}  // namespace tern
