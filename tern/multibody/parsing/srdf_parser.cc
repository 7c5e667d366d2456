#include "tern/multibody/parsing/srdf_parser.h"

#include <fmt/format.h>
#include <tinyxml2.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace tern {

std::vector<std::pair<std::string, std::string>>
ParseSrdfDisabledCollisionsString(const std::string& xml,
                                  const std::string& source_name) {
  tinyxml2::XMLDocument doc;
  if (doc.Parse(xml.c_str(), xml.size()) != tinyxml2::XML_SUCCESS) {
    throw std::runtime_error(fmt::format("{}:{}: XML: malformed XML: {}",
                                         source_name, doc.ErrorLineNum(),
                                         doc.ErrorStr()));
  }
  const tinyxml2::XMLElement* robot = doc.RootElement();
  if (robot == nullptr || std::string(robot->Name()) != "robot") {
    throw std::runtime_error(fmt::format(
        "{}:{}: <{}>: the root element of an SRDF must be <robot>", source_name,
        robot ? robot->GetLineNum() : 1, robot ? robot->Name() : "document"));
  }
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const tinyxml2::XMLElement* e =
           robot->FirstChildElement("disable_collisions");
       e != nullptr; e = e->NextSiblingElement("disable_collisions")) {
    const char* a = e->Attribute("link1");
    const char* b = e->Attribute("link2");
    if (a == nullptr || b == nullptr || *a == '\0' || *b == '\0') {
      throw std::runtime_error(
          fmt::format("{}:{}: <disable_collisions>: missing or empty attribute "
                      "'{}'",
                      source_name, e->GetLineNum(),
                      (a == nullptr || *a == '\0') ? "link1" : "link2"));
    }
    pairs.emplace_back(a, b);
  }
  return pairs;
}

std::vector<std::pair<std::string, std::string>> ParseSrdfDisabledCollisions(
    const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error(
        fmt::format("{}:0: file: cannot open the SRDF file", path));
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseSrdfDisabledCollisionsString(ss.str(), path);
}

}  // namespace tern
