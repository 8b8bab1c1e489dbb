#include "json.h"

#include <cmath>
#include <cstdlib>

namespace nhref {
namespace {

struct Parser {
  const std::string& s;
  size_t i = 0;

  [[noreturn]] void fail(const std::string& what) const {
    throw JsonError("JSON syntax error at byte " + std::to_string(i) + ": " + what);
  }
  void ws() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) ++i;
  }
  bool lit(const char* word) {
    size_t n = std::char_traits<char>::length(word);
    if (s.compare(i, n, word) == 0) { i += n; return true; }
    return false;
  }
  Json value(int depth) {
    if (depth > 64) fail("nesting deeper than 64");
    ws();
    if (i >= s.size()) fail("unexpected end of input");
    Json v;
    char c = s[i];
    if (c == '{') {
      v.kind = Json::Kind::Object;
      ++i; ws();
      if (i < s.size() && s[i] == '}') { ++i; return v; }
      for (;;) {
        ws();
        if (i >= s.size() || s[i] != '"') fail("expected a key string");
        std::string key = string();
        ws();
        if (i >= s.size() || s[i] != ':') fail("expected ':'");
        ++i;
        v.obj[key] = value(depth + 1);
        ws();
        if (i < s.size() && s[i] == ',') { ++i; continue; }
        if (i < s.size() && s[i] == '}') { ++i; return v; }
        fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      v.kind = Json::Kind::Array;
      ++i; ws();
      if (i < s.size() && s[i] == ']') { ++i; return v; }
      for (;;) {
        v.arr.push_back(value(depth + 1));
        ws();
        if (i < s.size() && s[i] == ',') { ++i; continue; }
        if (i < s.size() && s[i] == ']') { ++i; return v; }
        fail("expected ',' or ']'");
      }
    }
    if (c == '"') { v.kind = Json::Kind::String; v.str = string(); return v; }
    if (lit("true")) { v.kind = Json::Kind::Bool; v.b = true; return v; }
    if (lit("false")) { v.kind = Json::Kind::Bool; return v; }
    if (lit("null")) return v;
    if (c == '-' || (c >= '0' && c <= '9')) {
      const char* start = s.c_str() + i;
      char* end = nullptr;
      v.kind = Json::Kind::Number;
      v.num = std::strtod(start, &end);
      if (end == start || !std::isfinite(v.num)) fail("bad number");
      i += size_t(end - start);
      return v;
    }
    fail(std::string("unexpected character '") + c + "'");
  }
  static void utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) out.push_back(char(cp));
    else if (cp < 0x800) { out.push_back(char(0xC0 | (cp >> 6))); out.push_back(char(0x80 | (cp & 0x3F))); }
    else if (cp < 0x10000) {
      out.push_back(char(0xE0 | (cp >> 12))); out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(char(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(char(0xF0 | (cp >> 18))); out.push_back(char(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(char(0x80 | ((cp >> 6) & 0x3F))); out.push_back(char(0x80 | (cp & 0x3F)));
    }
  }
  unsigned hex4() {
    if (i + 4 > s.size()) fail("short \\u escape");
    unsigned v = 0;
    for (int k = 0; k < 4; ++k) {
      char h = s[i++];
      v <<= 4;
      if (h >= '0' && h <= '9') v |= unsigned(h - '0');
      else if (h >= 'a' && h <= 'f') v |= unsigned(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F') v |= unsigned(h - 'A' + 10);
      else fail("bad \\u escape");
    }
    return v;
  }
  std::string string() {
    ++i;  // opening quote
    std::string out;
    while (i < s.size()) {
      char c = s[i++];
      if (c == '"') return out;
      if (c != '\\') { out.push_back(c); continue; }
      if (i >= s.size()) break;
      char e = s[i++];
      switch (e) {
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case '/': out.push_back('/'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && i + 1 < s.size() && s[i] == '\\' && s[i + 1] == 'u') {
            i += 2;
            unsigned lo = hex4();
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          utf8(out, cp);
          break;
        }
        default: fail("bad escape");
      }
    }
    fail("unterminated string");
  }
};

const char* kindName(Json::Kind k) {
  switch (k) {
    case Json::Kind::Null: return "null";
    case Json::Kind::Bool: return "a boolean";
    case Json::Kind::Number: return "a number";
    case Json::Kind::String: return "a string";
    case Json::Kind::Array: return "an array";
    case Json::Kind::Object: return "an object";
  }
  return "?";
}

}  // namespace

const Json& Json::at(const std::string& key, const std::string& path) const {
  if (kind != Kind::Object) throw JsonError(path + " is " + kindName(kind) + ", expected an object");
  auto it = obj.find(key);
  if (it == obj.end()) throw JsonError(path + "." + key + " is missing");
  return it->second;
}

double Json::number(const std::string& path) const {
  if (kind != Kind::Number) throw JsonError(path + " is " + kindName(kind) + ", expected a number");
  return num;
}

long long Json::integer(const std::string& path) const {
  double v = number(path);
  if (v != std::floor(v) || std::fabs(v) > 9007199254740992.0) throw JsonError(path + " is not an integer");
  return (long long)v;
}

const std::string& Json::string(const std::string& path) const {
  if (kind != Kind::String) throw JsonError(path + " is " + kindName(kind) + ", expected a string");
  return str;
}

const std::vector<Json>& Json::array(const std::string& path) const {
  if (kind != Kind::Array) throw JsonError(path + " is " + kindName(kind) + ", expected an array");
  return arr;
}

Json parseJson(const std::string& text) {
  Parser p{text};
  Json v = p.value(0);
  p.ws();
  if (p.i != text.size()) p.fail("trailing characters after the document");
  return v;
}

std::string jsonQuote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"') out += "\\\"";
    else if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20) {
      static const char* hex = "0123456789abcdef";
      out += "\\u00";
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 0xf]);
    } else out.push_back(char(c));
  }
  out.push_back('"');
  return out;
}

}  // namespace nhref
