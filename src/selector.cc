#include "selector.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <vector>

namespace windowctl {
namespace {

enum class Tok { kEnd, kIdent, kIn, kNotIn, kNot, kEq, kEqEq, kNotEq, kGt, kLt, kOpen, kClose, kComma };

struct Token {
  Tok tok;
  std::string_view text;
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_special(char c) { return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<'; }

// The lexer reads keywords only where an operator may stand, as apimachinery's does: `in` and
// `notin` are ordinary words as keys and values.
class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  Token next(bool keywords) {
    while (pos_ < s_.size() && is_space(s_[pos_])) ++pos_;
    if (pos_ == s_.size()) return {Tok::kEnd, "end of string"};
    const std::size_t start = pos_;
    const char c = s_[pos_];
    if (is_special(c)) {
      const char n = pos_ + 1 < s_.size() ? s_[pos_ + 1] : '\0';
      if ((c == '=' || c == '!') && n == '=') {
        pos_ += 2;
        return {c == '=' ? Tok::kEqEq : Tok::kNotEq, s_.substr(start, 2)};
      }
      ++pos_;
      switch (c) {
        case '=': return {Tok::kEq, s_.substr(start, 1)};
        case '!': return {Tok::kNot, s_.substr(start, 1)};
        case '(': return {Tok::kOpen, s_.substr(start, 1)};
        case ')': return {Tok::kClose, s_.substr(start, 1)};
        case ',': return {Tok::kComma, s_.substr(start, 1)};
        case '>': return {Tok::kGt, s_.substr(start, 1)};
        default: return {Tok::kLt, s_.substr(start, 1)};
      }
    }
    while (pos_ < s_.size() && !is_space(s_[pos_]) && !is_special(s_[pos_])) ++pos_;
    std::string_view word = s_.substr(start, pos_ - start);
    if (keywords && word == "in") return {Tok::kIn, word};
    if (keywords && word == "notin") return {Tok::kNotIn, word};
    return {Tok::kIdent, word};
  }

  Token peek(bool keywords) {
    const std::size_t saved = pos_;
    Token t = next(keywords);
    pos_ = saved;
    return t;
  }

 private:
  std::string_view s_;
  std::size_t pos_ = 0;
};

bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// A label name or value: alphanumeric at both ends, '-', '_' and '.' between.
bool label_word(std::string_view s) {
  if (s.empty() || !alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s) {
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

bool dns_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  std::size_t label_start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i < s.size() && s[i] != '.') {
      const char c = s[i];
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
      continue;
    }
    std::string_view label = s.substr(label_start, i - label_start);
    if (label.empty() || label.front() == '-' || label.back() == '-') return false;
    label_start = i + 1;
  }
  return true;
}

std::string quoted(std::string_view s) {
  constexpr std::size_t kMax = 80;
  return "\"" + std::string(s.substr(0, kMax)) + (s.size() > kMax ? "...\"" : "\"");
}

std::string key_problem(std::string_view key) {
  std::string_view name = key;
  if (auto slash = key.find('/'); slash != std::string_view::npos) {
    std::string_view prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    if (!dns_subdomain(prefix))
      return "key " + quoted(key) + ": its prefix must be a DNS subdomain (lowercase, at most 253 characters)";
  }
  if (name.size() > 63 || !label_word(name)) {
    return "key " + quoted(key) +
           ": a label name is at most 63 characters, alphanumeric at both ends, with '-', '_' or '.' between";
  }
  return {};
}

std::string value_problem(std::string_view value) {
  if (value.empty()) return {};
  if (value.size() > 63 || !label_word(value)) {
    return "value " + quoted(value) +
           ": a label value is empty or at most 63 characters, alphanumeric at both ends, with '-', '_' or '.' between";
  }
  return {};
}

std::string found(const Token& t, std::string_view expected) {
  return "found " + (t.tok == Tok::kEnd ? std::string("end of string") : quoted(t.text)) +
         ", expected: " + std::string(expected);
}

bool is_operator(Tok t) {
  return t == Tok::kIn || t == Tok::kNotIn || t == Tok::kEq || t == Tok::kEqEq || t == Tok::kNotEq || t == Tok::kGt ||
         t == Tok::kLt;
}

// strconv.ParseInt(s, 10, 64), which apimachinery reads the values of '>' and '<' with: an
// optional sign, then decimal digits.
std::optional<std::int64_t> parse_int(std::string_view s) {
  if (s.starts_with('+')) s.remove_prefix(1);
  std::string_view digits = s.starts_with('-') ? s.substr(1) : s;
  if (digits.empty() || digits.front() < '0' || digits.front() > '9') return std::nullopt;
  std::int64_t n = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return n;
}

using Op = LabelRequirement::Op;

std::string requirement(Lexer& lex, LabelRequirement& r) {
  Token t = lex.next(false);
  const bool negated = t.tok == Tok::kNot;
  if (negated) t = lex.next(false);
  if (t.tok != Tok::kIdent) return found(t, "identifier");
  if (auto p = key_problem(t.text); !p.empty()) return p;
  r.key = std::string(t.text);
  r.op = negated ? Op::kDoesNotExist : Op::kExists;
  Token op = lex.peek(true);
  if (op.tok == Tok::kEnd || op.tok == Tok::kComma) return {};  // exists, or !key: does not exist
  if (negated) return found(op, "',' or end of string after '!" + std::string(t.text.substr(0, 80)) + "'");
  lex.next(true);
  if (!is_operator(op.tok)) return found(op, "an operator (=, ==, !=, in, notin, >, <)");
  if (op.tok == Tok::kIn || op.tok == Tok::kNotIn) {
    r.op = op.tok == Tok::kIn ? Op::kIn : Op::kNotIn;
    Token open = lex.next(false);
    if (open.tok != Tok::kOpen) return found(open, "'('");
    // A list of values: a,b  a,,b  (empty values are values), or () for the empty value.
    for (;;) {
      Token v = lex.next(false);
      std::string value;
      if (v.tok == Tok::kIdent) {
        if (auto p = value_problem(v.text); !p.empty()) return p;
        value = std::string(v.text);
        v = lex.next(false);
      }
      if (v.tok != Tok::kClose && v.tok != Tok::kComma) return found(v, "',' or ')'");
      r.values.push_back(std::move(value));
      if (v.tok == Tok::kClose) return {};
    }
  }
  const bool compares = op.tok == Tok::kGt || op.tok == Tok::kLt;
  if (compares) {
    r.op = op.tok == Tok::kGt ? Op::kGreaterThan : Op::kLessThan;
  } else {
    r.op = op.tok == Tok::kNotEq ? Op::kNotIn : Op::kIn;
  }
  Token v = lex.peek(false);
  if (v.tok == Tok::kEnd || v.tok == Tok::kComma) {
    if (compares) return "for '>' and '<' the value must be an integer";
    r.values = {""};  // key= selects the empty value
    return {};
  }
  lex.next(false);
  if (v.tok != Tok::kIdent) return found(v, "a value");
  if (compares && !parse_int(v.text)) return "for '>' and '<' the value must be an integer, not " + quoted(v.text);
  if (auto p = value_problem(v.text); !p.empty()) return p;
  r.values = {std::string(v.text)};
  return {};
}

// The first problem, or "" when `selector` parses (its requirements then in `out`).
std::string parse(std::string_view selector, LabelSelector& out) {
  Lexer lex(selector);
  if (lex.peek(false).tok == Tok::kEnd) return {};
  for (;;) {
    Token first = lex.peek(false);
    if (first.tok != Tok::kIdent && first.tok != Tok::kNot) return found(first, "!, identifier, or end of string");
    if (auto p = requirement(lex, out.emplace_back()); !p.empty()) return p;
    Token after = lex.next(false);
    if (after.tok == Tok::kEnd) return {};
    if (after.tok != Tok::kComma) return found(after, "',' or end of string");
    Token again = lex.peek(false);
    if (again.tok != Tok::kIdent && again.tok != Tok::kNot) return found(again, "identifier after ','");
  }
}

}  // namespace

std::optional<LabelSelector> parse_selector(std::string_view selector, std::string* problem) {
  LabelSelector out;
  std::string p = parse(selector, out);
  if (problem) *problem = p;
  if (!p.empty()) return std::nullopt;
  return out;
}

std::string selector_problem(std::string_view selector) {
  LabelSelector ignored;
  return parse(selector, ignored);
}

// apimachinery's Requirement.Matches: != and notin select an object without the label; > and <
// select only a label that is an integer.
bool selector_matches(const LabelSelector& selector, const Labels& labels) {
  for (const auto& r : selector) {
    auto label = labels.find(r.key);
    const bool has = label != labels.end();
    auto listed = [&] { return std::find(r.values.begin(), r.values.end(), label->second) != r.values.end(); };
    bool ok = false;
    switch (r.op) {
      case Op::kExists: ok = has; break;
      case Op::kDoesNotExist: ok = !has; break;
      case Op::kIn: ok = has && listed(); break;
      case Op::kNotIn: ok = !has || !listed(); break;
      case Op::kGreaterThan:
      case Op::kLessThan: {
        auto have = has ? parse_int(label->second) : std::nullopt;
        auto want = r.values.empty() ? std::nullopt : parse_int(r.values.front());
        ok = have && want && (r.op == Op::kGreaterThan ? *have > *want : *have < *want);
        break;
      }
    }
    if (!ok) return false;
  }
  return true;
}

}  // namespace windowctl
