// kubeconfig files read from text, with the files they name read through a caller's reader:
// what kubeconfig_config (config.h) does after reading the files, and what the fuzz target
// drives without touching the disk.
#pragma once

#include <functional>
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

// The merged kubeconfig's context (`context`, else the first current-context). ConfigError for
// anything malformed or missing; nothing else escapes.
Config kubeconfig_from(const std::vector<KubeconfigFile>& files, const std::string& context, const FileReader& read);

// The names of the merged kubeconfig's contexts, first file first, each once (the first file
// that has a name wins, as for kubeconfig_from). ConfigError as kubeconfig_from's.
std::vector<std::string> kubeconfig_contexts_from(const std::vector<KubeconfigFile>& files);

}  // namespace windowctl
