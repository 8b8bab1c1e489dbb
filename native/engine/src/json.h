// json.h — a small JSON reader/writer: the checkpoint header and golden.json are JSON, and the
// engine takes no third-party dependency beyond doctest.
#pragma once
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace nhref {

// A parsed JSON value; objects keep keys sorted (lookups only, order never matters here).
struct Json {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool b = false;
  double num = 0.0;
  std::string str;
  std::vector<Json> arr;
  std::map<std::string, Json> obj;

  bool has(const std::string& key) const { return kind == Kind::Object && obj.count(key) != 0; }
  // Throws JsonError naming `path.key` when absent: callers pass the path for the message.
  const Json& at(const std::string& key, const std::string& path) const;
  double number(const std::string& path) const;
  long long integer(const std::string& path) const;
  const std::string& string(const std::string& path) const;
  const std::vector<Json>& array(const std::string& path) const;
};

// Why a document was not usable, with the field path in the message.
struct JsonError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Parses a whole document; trailing garbage is an error.
Json parseJson(const std::string& text);

// Escapes a string for embedding in JSON output (events, header).
std::string jsonQuote(const std::string& s);

}  // namespace nhref
