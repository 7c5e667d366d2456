#pragma once
// Resolution of the file names that robot descriptions use for meshes:
// package://<pkg>/<rel> (ROS), model://<model>/<rel> (SDFormat, resolved the
// same way), file:///abs, absolute paths and paths relative to the file that
// names them.
//
// A PackageMap holds package name -> folder entries and the search paths that
// produced them. Entries come from explicit Add() calls (which always win and
// replace an earlier entry of that name) and from discovery (first found
// wins): package.xml files below a search path (the package's name is the
// <name> of its package.xml, as rospack crawls ROS_PACKAGE_PATH), the
// immediate subfolders of a search path by folder name (as Gazebo's model
// paths and PyBullet's setAdditionalSearchPath work), and package.xml files in
// the folders above a given file (Drake's PopulateUpstreamToDrake does the
// same for one package). It records every place it searched, so that a
// missing package can be reported with all of them. A PackageMap is a plain
// value: copy it, add to the copy.
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace tern {

// A package or a file that a uri names cannot be found. The message names the
// uri, the package and every place searched.
class PackageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class PackageMap {
 public:
  // Maps package `name` to folder `dir` (replacing an earlier entry of that
  // name). Throws PackageError if `dir` is not a folder or `name` is empty or
  // holds a '/'.
  void Add(const std::string& name, const std::string& dir);

  // Registers the packages found below `dir`: every folder holding a
  // package.xml (named by its <name>, down to kMaxCrawlDepth levels; the
  // crawl does not enter a package, nor hidden folders, nor folders holding a
  // CATKIN_IGNORE file), and each immediate subfolder of `dir` by its folder
  // name. Relative file names that are not found next to their file are also
  // tried against `dir`. A `dir` that does not exist is recorded (it shows in
  // messages) and otherwise ignored.
  void AddSearchPath(const std::string& dir);

  // AddSearchPath for each ':'-separated entry of the environment variable
  // `var` (unset or empty: nothing, but recorded for messages).
  void PopulateFromEnvironment(const std::string& var = "ROS_PACKAGE_PATH");

  // Registers the package.xml files in the folder of `path` (a file or a
  // folder) and every folder above it, innermost first.
  void PopulateUpstream(const std::string& path);

  // Adds every entry and search path of `other` that this map does not have
  // (entries already here win).
  void AddMap(const PackageMap& other);

  bool Contains(const std::string& name) const;
  // The folder of package `name`. Throws PackageError naming the package and
  // every place searched.
  std::string GetPath(const std::string& name) const;
  // Names of the known packages, sorted.
  std::vector<std::string> GetPackageNames() const;
  int size() const { return static_cast<int>(packages_.size()); }
  const std::vector<std::string>& search_paths() const { return search_paths_; }

  // The absolute, normalized path of an existing file named by `uri`:
  // package://pkg/rel and model://pkg/rel (folder of pkg + rel), file:///abs,
  // an absolute path, or a relative path (against `base_dir`, then each
  // search path). Throws PackageError naming the uri, the package and every
  // place searched if the package is not known or the file does not exist.
  std::string Resolve(const std::string& uri,
                      const std::string& base_dir) const;

  // A one-line account of the places searched, for messages.
  std::string DescribeSearched() const;

  static constexpr int kMaxCrawlDepth = 6;

 private:
  struct Entry {
    std::string dir;
    std::string origin;  // "explicit", "package.xml in ...", ...
  };
  // Adds a discovered entry unless the name is taken; returns true if added.
  bool AddDiscovered(const std::string& name, const std::string& dir,
                     const std::string& origin);
  void Crawl(const std::string& dir, int depth);

  std::map<std::string, Entry> packages_;
  std::vector<std::string> search_paths_;  // in the order added
  std::vector<std::string> searched_;      // descriptions, for messages
};

// The <name> of a package.xml file, or "" if it has none or cannot be read.
std::string ReadPackageXmlName(const std::string& package_xml);

}  // namespace tern
