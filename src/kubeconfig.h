// kubeconfig files read from text, with the files they name read through a caller's reader:
// what kubeconfig_config (config.h) does after reading the files, and what the fuzz target
// drives without touching the disk.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "config.h"

namespace windowctl {

struct KubeconfigFile {
  std::string path;  // for messages, and the base of relative file references
  std::string text;
};

// read(path, what) returns a file's contents or throws ConfigError, as read_file does.
using FileReader = std::function<std::string(const std::string& path, const std::string& what)>;

// Merged kubeconfig files parsed once: a fleet run asks for many contexts' Configs without
// parsing the files again for each (100 contexts would parse 100 times). ConfigError from the
// constructor when a file is not a kubeconfig.
class ParsedKubeconfig {
 public:
  ParsedKubeconfig(const std::vector<KubeconfigFile>& files, FileReader read);
  ~ParsedKubeconfig();

  // The contexts' names, first file first, each once (the first file that has a name wins, as
  // for config). ConfigError when a contexts list is malformed.
  std::vector<std::string> contexts() const;
  // `context`'s (else the first current-context's) Config. ConfigError for anything malformed or
  // missing; nothing else escapes.
  Config config(const std::string& context) const;

 private:
  struct Files;
  std::unique_ptr<Files> files_;
  FileReader read_;
};

// The merged kubeconfig's context (`context`, else the first current-context). ConfigError for
// anything malformed or missing; nothing else escapes.
Config kubeconfig_from(const std::vector<KubeconfigFile>& files, const std::string& context, const FileReader& read);

}  // namespace windowctl
