#pragma once
// Finds the error messages the documentation quotes (README.md, docs/*.md and
// the comments of the public headers), so a test can compare each with what
// the library prints. Two kinds:
//
//   - full messages: a quoted `$...: ...` or `refwire: snapshot ...` ("...",
//     `...`, or a line of a code block that starts so), compared with
//     error::message(), decode_error::what(), encode_error::what() or
//     snapshot_error::what();
//   - reasons: in a markdown table whose first cell names an errc
//     (| `truncated` | `truncated <what>, needs N bytes, L left` | ...), and in
//     prose right after an errc (`depth_limit`: "nesting exceeds ..."), and
//     any quote that starts "lz4: ", compared with error::reason().
// Both are read as patterns: N, M, L, K, C and D standing alone are numbers,
// 0xNN a byte, <...> and "..." any text, `a\|b` either word.
//
// Placeholders that stand for any message ("$.path: reason", "<path>: <reason>")
// are not messages and are left out.

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace quoted {

enum class kind { message, reason };

struct quote {
  kind what;
  std::string text;   // as written, line breaks folded to one space
  std::string where;  // "docs/binary-format.md:375"
};

inline const std::set<std::string, std::less<>>& errc_names() {
  static const std::set<std::string, std::less<>> names = {
      "truncated",        "invalid_varint", "invalid_bool",      "invalid_tag",    "invalid_variant",
      "invalid_value",    "duplicate_key",  "depth_limit",       "element_limit",  "allocation_limit",
      "trailing_bytes",   "corrupt_compressed", "invalid_snapshot", "io_error",     "wire_type",
      "invalid_field",    "unknown_field",  "invalid_utf8",      "invalid_json",   "type_mismatch",
      "missing_field"};
  return names;
}

inline std::string fold(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

inline std::size_t words(std::string_view s) {
  std::size_t n = 0;
  bool in = false;
  for (char c : s) {
    const bool w = c != ' ';
    if (w && !in) ++n;
    in = w;
  }
  return n;
}

/// A message that stands for every message, not one the library prints.
inline bool placeholder(std::string_view s) {
  return s.find("path: reason") != std::string_view::npos || s.find("<path>") != std::string_view::npos ||
         s.find("<reason>") != std::string_view::npos;
}

/// True when text[pos] is the `"` that closes a quote opened before it: not
/// the inner quotes of a map key segment (["key"]).
inline bool closes(std::string_view text, std::size_t pos) {
  if (pos > 0 && text[pos - 1] == '[') return false;
  if (pos + 1 < text.size() && text[pos + 1] == ']') return false;
  return true;
}

/// The quote that starts at text[open] (a `"` or a backtick), or npos.
inline std::size_t quote_end(std::string_view text, std::size_t open) {
  const char q = text[open];
  std::size_t lines = 0;
  for (std::size_t i = open + 1; i < text.size(); ++i) {
    if (text[i] == '\n' && ++lines > 3) return std::string_view::npos;
    if (text[i] == q && (q == '`' || (text[i - 1] != '\\' && closes(text, i)))) return i;
  }
  return std::string_view::npos;
}

inline std::size_t line_of(std::string_view text, std::size_t pos) {
  return static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n')) + 1;
}

inline bool starts_message(std::string_view s) {
  if (s.starts_with("refwire: snapshot ")) return true;  // snapshot_error::what()
  return s.size() > 2 && s[0] == '$' && (s[1] == '.' || s[1] == '[' || s[1] == ':') &&
         s.find(": ") != std::string_view::npos;
}

/// A reason quoted on its own: the compression envelope's all begin "lz4: ".
inline bool starts_reason(std::string_view s) { return s.starts_with("lz4: "); }

/// Quotes in one text. For a header, `text` holds its comment lines only
/// (other lines blanked, so line numbers hold).
inline void scan_text(std::string_view text, const std::string& file, bool markdown, std::vector<quote>& out) {
  // Full messages in quotes.
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((text[i] != '"' && text[i] != '`') || i + 1 >= text.size()) continue;
    const std::string_view head = text.substr(i + 1, 18);
    if (text[i + 1] != '$' && !starts_reason(head) && !head.starts_with("refwire: snapshot ")) continue;
    const std::size_t end = quote_end(text, i);
    if (end == std::string_view::npos) continue;
    std::string body = fold(text.substr(i + 1, end - i - 1));
    if (text[i] == '"') {  // a C++ string in a comment: \" is a quote
      for (std::size_t p; (p = body.find("\\\"")) != std::string::npos;) body.erase(p, 1);
    }
    if (starts_message(body) && !placeholder(body)) {
      out.push_back({kind::message, body, file + ":" + std::to_string(line_of(text, i))});
    } else if (starts_reason(body)) {
      out.push_back({kind::reason, body, file + ":" + std::to_string(line_of(text, i))});
    }
    i = end;
  }
  if (!markdown) return;
  // Lines of fenced code blocks that are messages.
  std::istringstream lines{std::string(text)};
  std::string line;
  std::size_t n = 0;
  bool fenced = false;
  std::vector<std::string> table_row_cells;
  while (std::getline(lines, line)) {
    ++n;
    std::string_view t = line;
    while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
    if (t.starts_with("```")) {
      fenced = !fenced;
      continue;
    }
    if (fenced) {
      if (starts_message(t) && !placeholder(t)) out.push_back({kind::message, fold(t), file + ":" + std::to_string(n)});
      continue;
    }
    // Table rows whose first cell names an errc: the second cell's quoted reasons.
    if (t.starts_with("|")) {
      std::vector<std::string> cells;
      std::string cell;
      for (std::size_t k = 1; k < t.size(); ++k) {
        if (t[k] == '|' && t[k - 1] != '\\') {
          cells.push_back(cell);
          cell.clear();
        } else {
          cell += t[k];
        }
      }
      if (cells.size() < 2) continue;
      const std::string& first = cells[0];
      const auto a = first.find('`');
      const auto b = a == std::string::npos ? a : first.find('`', a + 1);
      if (b == std::string::npos) continue;
      std::string code = first.substr(a + 1, b - a - 1);
      if (code.starts_with("errc::")) code.erase(0, 6);
      if (!errc_names().contains(code)) continue;
      const std::string& second = cells[1];
      for (std::size_t k = 0; k < second.size(); ++k) {
        if (second[k] != '`') continue;
        const auto e = second.find('`', k + 1);
        if (e == std::string::npos) break;
        std::string r = fold(second.substr(k + 1, e - k - 1));
        if (words(r) >= 3 && !placeholder(r)) out.push_back({kind::reason, r, file + ":" + std::to_string(n)});
        k = e;
      }
    }
  }
  // Prose: `errc` (or `errc::x`) followed by `: "`, ` ("`, `, ` and a quote.
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '`') continue;
    const std::size_t e = text.find('`', i + 1);
    if (e == std::string_view::npos) break;
    std::string code(text.substr(i + 1, e - i - 1));
    if (code.starts_with("errc::")) code.erase(0, 6);
    if (!errc_names().contains(code)) {
      i = e - 1;
      continue;
    }
    std::size_t k = e + 1;
    const std::string_view after = text.substr(k, 3);
    if (after.starts_with(": ") || after.starts_with(", ")) {
      k += 2;
    } else if (after.starts_with(" (") || after.starts_with("\n(")) {
      k += 2;
    } else if (after.starts_with("(")) {
      k += 1;
    } else {
      i = e;
      continue;
    }
    if (k < text.size() && (text[k] == '"' || text[k] == '`') && (k + 1 >= text.size() || text[k + 1] != '$')) {
      const std::size_t end = quote_end(text, k);
      if (end != std::string_view::npos) {
        std::string r = fold(text.substr(k + 1, end - k - 1));
        if (words(r) >= 3 && !placeholder(r)) out.push_back({kind::reason, r, file + ":" + std::to_string(line_of(text, k))});
      }
    }
    i = e;
  }
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A header's comment text: each line's text after `//` (other lines empty).
inline std::string comments_of(const std::string& source) {
  std::istringstream in(source);
  std::string line, out;
  while (std::getline(in, line)) {
    const auto c = line.find("//");
    if (c != std::string::npos) out += line.substr(c + 2);
    out += '\n';
  }
  return out;
}

/// Every quote in README.md, docs/*.md and the public headers under root.
inline std::vector<quote> scan(const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  std::vector<quote> out;
  std::vector<fs::path> docs{root / "README.md"};
  for (const auto& e : fs::directory_iterator(root / "docs")) {
    if (e.path().extension() == ".md") docs.push_back(e.path());
  }
  std::sort(docs.begin(), docs.end());
  for (const auto& p : docs) {
    scan_text(read_file(p), fs::relative(p, root).generic_string(), true, out);
  }
  std::vector<fs::path> headers;
  for (const char* part : {"serialization", "rpc", "transports"}) {
    const fs::path inc = root / part / "include";
    if (!fs::exists(inc)) continue;
    for (const auto& e : fs::recursive_directory_iterator(inc)) {
      if (e.path().extension() == ".hpp") headers.push_back(e.path());
    }
  }
  std::sort(headers.begin(), headers.end());
  for (const auto& p : headers) {
    scan_text(comments_of(read_file(p)), fs::relative(p, root).generic_string(), false, out);
  }
  return out;
}

/// A reason as written in the docs, as a regular expression over reason().
inline std::regex pattern_of(const std::string& written) {
  std::string re;
  for (std::size_t i = 0; i < written.size(); ++i) {
    const char c = written[i];
    const auto rest = std::string_view(written).substr(i);
    const bool word_start = i == 0 || !std::isalnum(static_cast<unsigned char>(written[i - 1]));
    const bool word_end = i + 1 >= written.size() || !std::isalnum(static_cast<unsigned char>(written[i + 1]));
    if (rest.starts_with("...") || rest.starts_with("\xE2\x80\xA6")) {
      re += ".*";
      i += 2;  // "..." and the UTF-8 ellipsis are three bytes each
    } else if (c == '<') {
      const auto close = written.find('>', i);
      if (close == std::string::npos) {
        re += "<";
        continue;
      }
      re += ".+?";
      i = close;
    } else if (rest.starts_with("0xNN")) {
      re += "0x[0-9a-f]{2}";
      i += 3;
    } else if ((c == 'N' || c == 'M' || c == 'L' || c == 'K' || c == 'C' || c == 'D') && word_start && word_end) {
      re += "-?[0-9]+";
    } else if (std::isalnum(static_cast<unsigned char>(c)) && word_start) {
      // a\|b\|c: one of the words
      std::size_t j = i;
      std::vector<std::string> alts;
      std::string w;
      while (j < written.size()) {
        if (std::isalnum(static_cast<unsigned char>(written[j])) || written[j] == '_') {
          w += written[j++];
        } else if (written.compare(j, 2, "\\|") == 0 && !w.empty()) {
          alts.push_back(w);
          w.clear();
          j += 2;
        } else {
          break;
        }
      }
      alts.push_back(w);
      if (alts.size() > 1) {
        re += "(";
        for (std::size_t a = 0; a < alts.size(); ++a) re += (a ? "|" : "") + alts[a];
        re += ")";
      } else {
        re += w;
      }
      i = j - 1;
    } else if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) {
      re += '\\';
      re += c;
    } else {
      re += c;
    }
  }
  return std::regex(re);
}

}  // namespace quoted
