#include "manifests.h"

#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>

#include "errors.h"
#include "json_read.h"
#include "text.h"
#include "util.h"

namespace windowctl {

using nlohmann::json;

namespace {

// Nodes after aliases are expanded, over all documents: a few hundred per object, so this is
// thousands of objects more than any cluster has, and it stops an alias bomb early.
constexpr std::size_t kMaxNodes = 4u << 20;

std::string too_big() {
  return "the manifests are larger than " + std::to_string(kMaxManifestBytes >> 20) + " MiB in total";
}

void append_stream(std::istream& in, const std::string& name, std::string& out, std::size_t& total) {
  char buf[65536];
  while (in) {
    in.read(buf, sizeof buf);
    auto n = static_cast<std::size_t>(in.gcount());
    if (n > kMaxManifestBytes - total) throw ConfigError(too_big());
    out.append(buf, n);
    total += n;
  }
  if (in.bad()) throw ConfigError("cannot read " + name);
}

void read_file(const std::string& path, std::vector<ManifestSource>& out, std::size_t& total) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError("cannot read " + path + ": " + std::strerror(errno));
  ManifestSource s{path, {}};
  append_stream(in, path, s.text, total);
  out.push_back(std::move(s));
}

bool is_yaml_name(std::string_view name) {
  // As std::filesystem's extension(): a name that only begins with the dot has none.
  const auto dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return false;
  const auto ext = name.substr(dot);
  return ext == ".yaml" || ext == ".yml";
}

void read_dir(const std::string& dir, std::vector<ManifestSource>& out, std::size_t& total) {
  std::vector<std::string> files;
  const int error = walk_dir(dir, [&](const DirEntry& e) {
    if (e.name.starts_with(".")) return Walk::kSkip;  // .git and editor files
    if (is_yaml_name(e.name) && e.file) files.push_back(e.path);
    return Walk::kDescend;
  });
  if (error != 0) throw ConfigError("cannot read directory " + dir + ": " + std::strerror(error));
  std::sort(files.begin(), files.end());
  for (const auto& f : files) read_file(f, out, total);
}

// Plain scalars as Kubernetes' YAML reader (go-yaml v2, YAML 1.1) types them, as far as the
// rules care: booleans, null and integers. Everything else stays a string.
json scalar(const YAML::Node& node) {
  const std::string& v = node.Scalar();
  if (node.Tag() != "?") return v;  // quoted or explicitly tagged: as written
  static const char* const kTrue[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"};
  static const char* const kFalse[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"};
  for (const char* t : kTrue)
    if (v == t) return true;
  for (const char* f : kFalse)
    if (v == f) return false;
  if (v.empty() || v == "~" || v == "null" || v == "Null" || v == "NULL") return nullptr;
  long long n = 0;
  const char* b = v.data() + (v.front() == '+' ? 1 : 0);
  auto [p, err] = std::from_chars(b, v.data() + v.size(), n);
  if (err == std::errc() && p == v.data() + v.size() && b != p) return n;
  return v;
}

struct Converter {
  std::size_t nodes = 0;

  json operator()(const YAML::Node& node, int depth) {
    if (++nodes > kMaxNodes)
      throw ConfigError("expands to more than " + std::to_string(kMaxNodes) + " YAML nodes (aliases?)");
    if (depth > kMaxJsonDepth) throw ConfigError("nests deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    switch (node.Type()) {
      case YAML::NodeType::Scalar: return scalar(node);
      case YAML::NodeType::Sequence: {
        json out = json::array();
        for (const auto& item : node) out.push_back((*this)(item, depth + 1));
        return out;
      }
      case YAML::NodeType::Map: {
        json out = json::object();
        for (const auto& kv : node) {
          if (!kv.first.IsScalar()) throw ConfigError("has a key that is not a string");
          out[kv.first.Scalar()] = (*this)(kv.second, depth + 1);
        }
        return out;
      }
      default: return nullptr;
    }
  }
};

void add_object(json obj, const std::string& where, std::vector<json>& out) {
  if (!obj.is_object()) throw ConfigError(where + " is not a Kubernetes object (a YAML mapping)");
  const std::string kind = string_at(obj, "kind");
  if (kind.empty()) throw ConfigError(where + " has no kind");
  if (kind.ends_with("List") && obj.contains("items")) {
    json& items = obj["items"];
    if (!items.is_array()) throw ConfigError(where + ": items of the " + kind + " is not a list");
    for (std::size_t i = 0; i < items.size(); ++i) {
      add_object(std::move(items[i]), where + ", item " + std::to_string(i + 1), out);
    }
    return;
  }
  out.push_back(std::move(obj));
}

}  // namespace

std::vector<ManifestSource> read_manifest_sources(const std::vector<std::string>& args) {
  std::vector<ManifestSource> out;
  std::size_t total = 0;
  for (const auto& a : args) {
    if (a == "-") {
      ManifestSource s{"-", {}};
      append_stream(std::cin, "stdin", s.text, total);
      out.push_back(std::move(s));
      continue;
    }
    struct stat st {};
    if (::stat(a.c_str(), &st) != 0) throw ConfigError("cannot read " + a + ": no such file or directory");
    if (S_ISDIR(st.st_mode)) {
      read_dir(a, out, total);
    } else {
      read_file(a, out, total);
    }
  }
  return out;
}

namespace {

bool blank_or_comments(std::string_view text) {
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view l = text.substr(pos, end - pos);
    std::size_t c = l.find_first_not_of(" \t\r");
    if (c != std::string_view::npos && l[c] != '#') return false;
    pos = end + 1;
  }
  return true;
}

struct Chunk {
  std::string_view text;
  std::size_t first_line;  // 0-based line of the input where it starts
};

// Documents split at "---" lines, as kubectl's YAML reader does, and each parsed alone.
// yaml-cpp 0.7's LoadAll never ends on some malformed streams (",a: b" makes an empty document
// forever without consuming a byte; found by manifests_fuzz), so it is not used.
std::vector<Chunk> split_documents(std::string_view text) {
  std::vector<Chunk> out;
  std::size_t start = 0, line = 0, start_line = 0;
  for (std::size_t pos = 0; pos <= text.size();) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(pos, end - pos);
    bool separator = l.starts_with("---") && l.find_first_not_of(" \t\r", 3) == std::string_view::npos;
    if (separator) {
      out.push_back({text.substr(start, pos - start), start_line});
      start = end + 1 > text.size() ? text.size() : end + 1;
      start_line = line + 1;
    }
    ++line;
    pos = end + 1;
  }
  if (start < text.size()) out.push_back({text.substr(start), start_line});
  // What comes before a stream's first "---" is a document only if it holds something.
  if (out.size() > 1 && blank_or_comments(out.front().text)) out.erase(out.begin());
  return out;
}

// Whether a document holds anything but blank lines, comments and an explicit null.
bool has_content(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(pos, end - pos);
    std::size_t first = l.find_first_not_of(" \t\r");
    if (first != std::string_view::npos && l[first] != '#') {
      std::string_view v = l.substr(first);
      v = v.substr(0, v.find_last_not_of(" \t\r") + 1);
      if (v != "~" && v != "null" && v != "Null" && v != "NULL" && v != "..." && !v.starts_with("%")) return true;
    }
    pos = end + 1;
  }
  return false;
}

}  // namespace

std::vector<json> parse_manifests(const std::vector<ManifestSource>& sources) {
  std::vector<json> out;
  Converter convert;
  for (const auto& src : sources) {
    if (!valid_utf8(src.text)) throw ConfigError(src.name + " is not valid UTF-8");
    std::size_t index = 0;
    for (const Chunk& chunk : split_documents(src.text)) {
      ++index;
      const std::string where = src.name + ", document " + std::to_string(index);
      YAML::Node doc;
      try {
        doc = YAML::Load(std::string(chunk.text));
      } catch (const YAML::Exception& e) {
        throw ConfigError(src.name + ": invalid YAML at line " + std::to_string(chunk.first_line + e.mark.line + 1) +
                          ": " + e.msg);
      }
      if (!doc || doc.IsNull()) {
        if (has_content(chunk.text)) {
          throw ConfigError(where + " (from line " + std::to_string(chunk.first_line + 1) +
                            ") is not YAML this reader can read");
        }
        continue;
      }
      try {
        add_object(convert(doc, 0), where, out);
      } catch (const ConfigError& e) {
        if (std::string_view(e.what()).starts_with(where)) throw;
        throw ConfigError(where + " " + e.what());
      } catch (const YAML::Exception& e) {
        throw ConfigError(where + ": " + e.msg);
      }
    }
  }
  return out;
}

}  // namespace windowctl
