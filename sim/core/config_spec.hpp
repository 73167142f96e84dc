#pragma once
// Declarative description of configuration objects (scenario JSON, scheduler parameters).
//
// One description serves four purposes, so they can never disagree:
//   resolve()      strict validation (unknown keys, types, ranges) + every default filled in,
//   json_schema()  the published JSON Schema (`floorsim schema`),
//   describe()     the parameter table with defaults for --help and the README,
//   the resolved JSON itself, written as scenario.resolved.json.
// Errors name the file and the JSON pointer of the offending value.
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace floorsim::cfg {

using json = nlohmann::json;

enum class Type { Bool, Int, Number, String, Enum, Object, Array, Map, Any };

struct ObjectSpec;

struct Field {
  std::string key;
  Type type = Type::Any;
  json def;                    // default; null with required=false means "absent stays absent"
  std::string doc;
  bool required = false;
  bool nullable = false;       // JSON null accepted (e.g. "no deadline")
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  std::vector<std::string> choices;          // Enum
  std::shared_ptr<const ObjectSpec> object;  // Object, or items of Array/Map when item == Object
  Type item = Type::Any;                     // Array/Map item type
  std::string unit;                          // shown in describe(): "s", "gpus", ...

  // Fluent setters keep the field tables readable.
  Field& with_default(json v) { def = std::move(v); return *this; }
  Field& describe(std::string d) { doc = std::move(d); return *this; }
  Field& at_least(double v) { min = v; return *this; }
  Field& at_most(double v) { max = v; return *this; }
  Field& must() { required = true; return *this; }
  Field& or_null() { nullable = true; return *this; }
  Field& in_unit(std::string u) { unit = std::move(u); return *this; }
};

struct ObjectSpec {
  std::string name;
  std::string doc;
  std::vector<Field> fields;
  bool open = false;  // true: unknown keys are kept (free-form maps), not errors
  // Extra cross-field checks after the fields resolved; throw InputError via fail().
  std::function<void(const json& resolved, const std::string& pointer, const std::string& file)> check;
};

// An object spec built in one expression (callers may still set `check` or `open` after).
inline std::shared_ptr<ObjectSpec> obj(std::string name, std::string doc, std::vector<Field> fields) {
  auto s = std::make_shared<ObjectSpec>();
  s->name = std::move(name);
  s->doc = std::move(doc);
  s->fields = std::move(fields);
  return s;
}

// Field constructors.
Field boolean(std::string key, bool def, std::string doc);
Field integer(std::string key, json def, std::string doc);
Field number(std::string key, json def, std::string doc);
Field string(std::string key, json def, std::string doc);
Field choice(std::string key, std::vector<std::string> choices, json def, std::string doc);
Field object(std::string key, std::shared_ptr<const ObjectSpec> spec, std::string doc);
Field array_of(std::string key, Type item, std::string doc);
Field array_of(std::string key, std::shared_ptr<const ObjectSpec> spec, std::string doc);
Field map_of(std::string key, Type item, std::string doc);
Field map_of(std::string key, std::shared_ptr<const ObjectSpec> spec, std::string doc);
Field any(std::string key, std::string doc);

// Validates `in` against `spec` and returns it with every default written in.
// `pointer` is the JSON pointer of `in` within its document ("" for the root).
json resolve(const json& in, const ObjectSpec& spec, const std::string& pointer,
             const std::string& file);

// Throws InputError("file", pointer, message).
[[noreturn]] void fail(const std::string& file, const std::string& pointer, const std::string& msg);

// JSON pointer escaping (RFC 6901) for a key appended to a pointer.
std::string child(const std::string& pointer, const std::string& key);
std::string child(const std::string& pointer, size_t index);

json json_schema(const ObjectSpec& spec);
// A plain-text table: key, type, default, unit, description (nested objects indented).
std::string describe(const ObjectSpec& spec, int indent = 0);

}  // namespace floorsim::cfg
