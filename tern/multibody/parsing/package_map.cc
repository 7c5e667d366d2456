#include "tern/multibody/parsing/package_map.h"

#include <fmt/format.h>
#include <tinyxml2.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace tern {

namespace fs = std::filesystem;

namespace {

bool IsDir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

bool IsFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

std::string Normal(const fs::path& p) {
  std::error_code ec;
  fs::path a = fs::absolute(p, ec);
  if (ec) a = p;
  std::string s = a.lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

// Splits "pkg/rel/path" into ("pkg", "rel/path").
std::pair<std::string, std::string> SplitPackage(const std::string& rest) {
  const auto slash = rest.find('/');
  if (slash == std::string::npos) return {rest, ""};
  return {rest.substr(0, slash), rest.substr(slash + 1)};
}

}  // namespace

std::string ReadPackageXmlName(const std::string& package_xml) {
  tinyxml2::XMLDocument doc;
  if (doc.LoadFile(package_xml.c_str()) != tinyxml2::XML_SUCCESS) return "";
  const tinyxml2::XMLElement* root = doc.RootElement();
  if (root == nullptr) return "";
  const tinyxml2::XMLElement* name = root->FirstChildElement("name");
  if (name == nullptr || name->GetText() == nullptr) return "";
  std::string s = name->GetText();
  const auto b = s.find_first_not_of(" \t\r\n");
  const auto e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

void PackageMap::Add(const std::string& name, const std::string& dir) {
  if (name.empty() || name.find('/') != std::string::npos) {
    throw PackageError(fmt::format(
        "PackageMap::Add: bad package name '{}' (empty or holds '/')", name));
  }
  if (!IsDir(dir)) {
    throw PackageError(fmt::format(
        "PackageMap::Add: package '{}': '{}' is not a folder", name, dir));
  }
  packages_[name] = Entry{Normal(dir), "given explicitly"};
}

bool PackageMap::AddDiscovered(const std::string& name, const std::string& dir,
                               const std::string& origin) {
  if (name.empty() || name.find('/') != std::string::npos) return false;
  return packages_.emplace(name, Entry{Normal(dir), origin}).second;
}

void PackageMap::Crawl(const std::string& dir, int depth) {
  const fs::path here(dir);
  if (IsFile(here / "package.xml")) {
    std::string name = ReadPackageXmlName((here / "package.xml").string());
    if (name.empty()) name = here.filename().string();
    AddDiscovered(name, dir, fmt::format("{}/package.xml", dir));
    return;  // rospack does not look for packages inside a package
  }
  if (depth >= kMaxCrawlDepth || IsFile(here / "CATKIN_IGNORE")) return;
  std::error_code ec;
  std::vector<std::string> subdirs;
  for (fs::directory_iterator it(here, ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string leaf = it->path().filename().string();
    if (leaf.empty() || leaf[0] == '.') continue;
    std::error_code ec2;
    if (it->is_directory(ec2)) subdirs.push_back(it->path().string());
  }
  // Sorted, so that which of two same-named packages wins does not depend
  // on the file system's order.
  std::sort(subdirs.begin(), subdirs.end());
  for (const auto& s : subdirs) Crawl(s, depth + 1);
}

void PackageMap::AddSearchPath(const std::string& dir) {
  if (dir.empty()) return;
  const std::string d = Normal(dir);
  for (const auto& s : search_paths_) {
    if (s == d) return;
  }
  search_paths_.push_back(d);
  if (!IsDir(d)) {
    searched_.push_back(fmt::format("search path {} (does not exist)", d));
    return;
  }
  searched_.push_back(fmt::format(
      "search path {} (package.xml files below it, and its subfolders)", d));
  Crawl(d, 0);
  std::error_code ec;
  std::vector<std::string> subdirs;
  for (fs::directory_iterator it(d, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::error_code ec2;
    if (it->is_directory(ec2)) subdirs.push_back(it->path().string());
  }
  std::sort(subdirs.begin(), subdirs.end());
  for (const auto& s : subdirs) {
    AddDiscovered(fs::path(s).filename().string(), s,
                  fmt::format("subfolder of search path {}", d));
  }
}

void PackageMap::PopulateFromEnvironment(const std::string& var) {
  const char* value = std::getenv(var.c_str());
  if (value == nullptr || *value == '\0') {
    searched_.push_back(fmt::format("${} (unset or empty)", var));
    return;
  }
  searched_.push_back(fmt::format("${}={}", var, value));
  std::stringstream in(value);
  std::string dir;
  while (std::getline(in, dir, ':')) AddSearchPath(dir);
}

void PackageMap::PopulateUpstream(const std::string& path) {
  fs::path p = fs::path(Normal(path.empty() ? "." : path));
  if (!IsDir(p)) p = p.parent_path();
  searched_.push_back(
      fmt::format("package.xml files in {} and the folders above", p.string()));
  for (fs::path d = p;; d = d.parent_path()) {
    if (IsFile(d / "package.xml")) {
      std::string name = ReadPackageXmlName((d / "package.xml").string());
      if (name.empty()) name = d.filename().string();
      AddDiscovered(name, d.string(),
                    fmt::format("{}/package.xml", d.string()));
    }
    if (d == d.parent_path() || d.empty()) break;
  }
}

void PackageMap::AddMap(const PackageMap& other) {
  for (const auto& [name, entry] : other.packages_) {
    packages_.emplace(name, entry);
  }
  for (const auto& s : other.search_paths_) {
    bool have = false;
    for (const auto& t : search_paths_) have = have || t == s;
    if (!have) search_paths_.push_back(s);
  }
  for (const auto& s : other.searched_) {
    bool have = false;
    for (const auto& t : searched_) have = have || t == s;
    if (!have) searched_.push_back(s);
  }
}

bool PackageMap::Contains(const std::string& name) const {
  return packages_.count(name) > 0;
}

std::vector<std::string> PackageMap::GetPackageNames() const {
  std::vector<std::string> names;
  for (const auto& [name, entry] : packages_) names.push_back(name);
  return names;
}

std::string PackageMap::DescribeSearched() const {
  std::string known;
  int shown = 0;
  for (const auto& [name, entry] : packages_) {
    if (entry.origin != "given explicitly") continue;
    known += fmt::format("{}{}={}", shown++ ? ", " : "", name, entry.dir);
  }
  std::string out = fmt::format("packages given explicitly: {}",
                                known.empty() ? "none" : known);
  for (const auto& s : searched_) out += "; " + s;
  if (searched_.empty()) out += "; no search path, $ROS_PACKAGE_PATH not read";
  return out;
}

std::string PackageMap::GetPath(const std::string& name) const {
  auto it = packages_.find(name);
  if (it == packages_.end()) {
    throw PackageError(fmt::format("package '{}' not found (searched: {})",
                                   name, DescribeSearched()));
  }
  return it->second.dir;
}

std::string PackageMap::Resolve(const std::string& uri,
                                const std::string& base_dir) const {
  for (const char* scheme : {"package://", "model://"}) {
    const std::string prefix = scheme;
    if (uri.rfind(prefix, 0) != 0) continue;
    const auto [name, rel] = SplitPackage(uri.substr(prefix.size()));
    auto it = packages_.find(name);
    if (it == packages_.end()) {
      throw PackageError(
          fmt::format("'{}': package '{}' not found (searched: {})", uri, name,
                      DescribeSearched()));
    }
    const fs::path file = fs::path(it->second.dir) / rel;
    if (!IsFile(file)) {
      throw PackageError(fmt::format(
          "'{}': file {} does not exist (package '{}' is {}, "
          "from {})",
          uri, file.string(), name, it->second.dir, it->second.origin));
    }
    return Normal(file);
  }
  std::vector<fs::path> tried;
  const std::string file_scheme = "file://";
  if (uri.rfind(file_scheme, 0) == 0) {
    tried.emplace_back(uri.substr(file_scheme.size()));
  } else if (fs::path(uri).is_absolute()) {
    tried.emplace_back(uri);
  } else if (uri.find("://") != std::string::npos) {
    throw PackageError(fmt::format(
        "'{}': unsupported uri scheme (use package://, model://, file:// or a "
        "path)",
        uri));
  } else {
    tried.push_back(fs::path(base_dir.empty() ? "." : base_dir) / uri);
    for (const auto& s : search_paths_) tried.push_back(fs::path(s) / uri);
  }
  for (const auto& p : tried) {
    if (IsFile(p)) return Normal(p);
  }
  std::string list;
  for (const auto& p : tried) list += (list.empty() ? "" : ", ") + p.string();
  throw PackageError(
      fmt::format("'{}': file not found (tried: {})", uri, list));
}

}  // namespace tern
