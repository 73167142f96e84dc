#include "sim/core/config_spec.hpp"

#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace floorsim::cfg {
namespace {

Field make(std::string key, Type t, json def, std::string doc) {
  Field f;
  f.key = std::move(key);
  f.type = t;
  f.def = std::move(def);
  f.doc = std::move(doc);
  return f;
}

const char* type_name(Type t) {
  switch (t) {
    case Type::Bool: return "boolean";
    case Type::Int: return "integer";
    case Type::Number: return "number";
    case Type::String: return "string";
    case Type::Enum: return "string";
    case Type::Object: return "object";
    case Type::Array: return "array";
    case Type::Map: return "object";
    case Type::Any: return "any";
  }
  return "any";
}

std::string json_kind(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

std::string expected_text(const Field& f, Type t) {
  switch (t) {
    case Type::Enum: {
      std::string s = "one of";
      for (size_t i = 0; i < f.choices.size(); ++i) s += (i ? ", \"" : " \"") + f.choices[i] + "\"";
      return s;
    }
    case Type::Int: return "an integer";
    case Type::Number: return "a number";
    case Type::Bool: return "true or false";
    case Type::String: return "a string";
    case Type::Object: return "an object";
    case Type::Array: return "an array";
    case Type::Map: return "an object";
    case Type::Any: return "a value";
  }
  return "a value";
}

std::string range_text(const Field& f) {
  const bool lo = std::isfinite(f.min), hi = std::isfinite(f.max);
  if (lo && hi) return fmt::format("between {} and {}", f.min, f.max);
  if (lo) return fmt::format(">= {}", f.min);
  if (hi) return fmt::format("<= {}", f.max);
  return "";
}

json resolve_value(const json& v, const Field& f, Type t, const std::string& ptr, const std::string& file);

json resolve_scalar(const json& v, const Field& f, Type t, const std::string& ptr, const std::string& file) {
  const std::string unit = f.unit.empty() ? "" : " (" + f.unit + ")";
  switch (t) {
    case Type::Bool:
      if (!v.is_boolean()) fail(file, ptr, fmt::format("got {}; expected true or false", json_kind(v)));
      return v;
    case Type::Int: {
      bool integral = v.is_number_integer() || v.is_number_unsigned();
      if (!integral && v.is_number_float()) {
        double d = v.get<double>();
        integral = std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15;
      }
      if (!integral) fail(file, ptr, fmt::format("got {}; expected an integer{}", json_kind(v), unit));
      const double d = v.get<double>();
      if (d < f.min || d > f.max)
        fail(file, ptr, fmt::format("got {}; expected an integer {}{}", v.dump(), range_text(f), unit));
      return json(v.get<int64_t>());
    }
    case Type::Number: {
      if (!v.is_number()) fail(file, ptr, fmt::format("got {}; expected a number{}", json_kind(v), unit));
      const double d = v.get<double>();
      if (!std::isfinite(d) || d < f.min || d > f.max)
        fail(file, ptr, fmt::format("got {}; expected a number {}{}", v.dump(), range_text(f), unit));
      return v;
    }
    case Type::String:
      if (!v.is_string()) fail(file, ptr, fmt::format("got {}; expected a string", json_kind(v)));
      return v;
    case Type::Enum: {
      if (v.is_string())
        for (const auto& c : f.choices)
          if (v.get<std::string>() == c) return v;
      fail(file, ptr, fmt::format("got {}; expected {}", v.dump(), expected_text(f, t)));
    }
    default:
      return v;
  }
}

json resolve_value(const json& v, const Field& f, Type t, const std::string& ptr, const std::string& file) {
  if (v.is_null() && f.nullable) return v;
  switch (t) {
    case Type::Object:
      if (!v.is_object()) fail(file, ptr, fmt::format("got {}; expected an object", json_kind(v)));
      return f.object ? resolve(v, *f.object, ptr, file) : v;
    case Type::Array: {
      if (!v.is_array()) fail(file, ptr, fmt::format("got {}; expected an array", json_kind(v)));
      json out = json::array();
      for (size_t i = 0; i < v.size(); ++i) out.push_back(resolve_value(v[i], f, f.item, child(ptr, i), file));
      return out;
    }
    case Type::Map: {
      if (!v.is_object()) fail(file, ptr, fmt::format("got {}; expected an object of named entries", json_kind(v)));
      json out = json::object();
      for (auto it = v.begin(); it != v.end(); ++it)
        out[it.key()] = resolve_value(it.value(), f, f.item, child(ptr, it.key()), file);
      return out;
    }
    case Type::Any:
      return v;
    default:
      return resolve_scalar(v, f, t, ptr, file);
  }
}

json schema_of(const Field& f, Type t);

json schema_of_object(const ObjectSpec& spec) {
  json s = {{"type", "object"}};
  if (!spec.doc.empty()) s["description"] = spec.doc;
  json props = json::object();
  json req = json::array();
  for (const auto& f : spec.fields) {
    json p = schema_of(f, f.type);
    if (!f.doc.empty()) p["description"] = f.doc + (f.unit.empty() ? "" : " [" + f.unit + "]");
    if (!f.def.is_null()) p["default"] = f.def;
    if (f.nullable) p = json{{"anyOf", json::array({p, json{{"type", "null"}}})}};
    props[f.key] = p;
    if (f.required) req.push_back(f.key);
  }
  s["properties"] = props;
  if (!req.empty()) s["required"] = req;
  s["additionalProperties"] = spec.open;
  return s;
}

json schema_of(const Field& f, Type t) {
  json s;
  switch (t) {
    case Type::Enum:
      s = {{"type", "string"}, {"enum", f.choices}};
      break;
    case Type::Object:
      s = f.object ? schema_of_object(*f.object) : json{{"type", "object"}};
      break;
    case Type::Array:
      s = {{"type", "array"}, {"items", schema_of(f, f.item)}};
      break;
    case Type::Map:
      s = {{"type", "object"}, {"additionalProperties", schema_of(f, f.item)}};
      break;
    case Type::Any:
      s = json::object();
      break;
    default:
      s = {{"type", type_name(t)}};
  }
  if (t == Type::Int || t == Type::Number) {
    if (std::isfinite(f.min)) s["minimum"] = f.min;
    if (std::isfinite(f.max)) s["maximum"] = f.max;
  }
  return s;
}

}  // namespace

Field boolean(std::string key, bool def, std::string doc) { return make(std::move(key), Type::Bool, def, std::move(doc)); }
Field integer(std::string key, json def, std::string doc) { return make(std::move(key), Type::Int, std::move(def), std::move(doc)); }
Field number(std::string key, json def, std::string doc) { return make(std::move(key), Type::Number, std::move(def), std::move(doc)); }
Field string(std::string key, json def, std::string doc) { return make(std::move(key), Type::String, std::move(def), std::move(doc)); }
Field choice(std::string key, std::vector<std::string> choices, json def, std::string doc) {
  Field f = make(std::move(key), Type::Enum, std::move(def), std::move(doc));
  f.choices = std::move(choices);
  return f;
}
Field object(std::string key, std::shared_ptr<const ObjectSpec> spec, std::string doc) {
  Field f = make(std::move(key), Type::Object, json(), std::move(doc));
  f.object = std::move(spec);
  return f;
}
Field array_of(std::string key, Type item, std::string doc) {
  Field f = make(std::move(key), Type::Array, json(), std::move(doc));
  f.item = item;
  return f;
}
Field array_of(std::string key, std::shared_ptr<const ObjectSpec> spec, std::string doc) {
  Field f = make(std::move(key), Type::Array, json(), std::move(doc));
  f.item = Type::Object;
  f.object = std::move(spec);
  return f;
}
Field map_of(std::string key, Type item, std::string doc) {
  Field f = make(std::move(key), Type::Map, json(), std::move(doc));
  f.item = item;
  return f;
}
Field map_of(std::string key, std::shared_ptr<const ObjectSpec> spec, std::string doc) {
  Field f = make(std::move(key), Type::Map, json(), std::move(doc));
  f.item = Type::Object;
  f.object = std::move(spec);
  return f;
}
Field any(std::string key, std::string doc) { return make(std::move(key), Type::Any, json(), std::move(doc)); }

void fail(const std::string& file, const std::string& pointer, const std::string& msg) {
  throw InputError(file, pointer.empty() ? "/" : pointer, msg);
}

std::string child(const std::string& pointer, const std::string& key) {
  std::string k;
  for (char c : key) {
    if (c == '~') k += "~0";
    else if (c == '/') k += "~1";
    else k += c;
  }
  return pointer + "/" + k;
}
std::string child(const std::string& pointer, size_t index) { return pointer + "/" + std::to_string(index); }

json resolve(const json& in, const ObjectSpec& spec, const std::string& pointer, const std::string& file) {
  if (!in.is_object()) fail(file, pointer, fmt::format("got {}; expected an object ({})", json_kind(in), spec.name));
  json out = json::object();
  for (auto it = in.begin(); it != in.end(); ++it) {
    bool known = false;
    for (const auto& f : spec.fields) known = known || f.key == it.key();
    if (!known && !spec.open) {
      std::string keys;
      for (const auto& f : spec.fields) keys += (keys.empty() ? "" : ", ") + f.key;
      fail(file, child(pointer, it.key()),
           fmt::format("unknown key \"{}\" in {}; expected one of: {}", it.key(), spec.name, keys));
    }
    if (!known) out[it.key()] = it.value();
  }
  for (const auto& f : spec.fields) {
    const std::string p = child(pointer, f.key);
    auto it = in.find(f.key);
    if (it == in.end()) {
      if (f.required) fail(file, p, fmt::format("missing required key \"{}\"; expected {}", f.key, expected_text(f, f.type)));
      bool nested_ok = f.type == Type::Object && f.object && f.def.is_null();
      if (nested_ok)
        for (const auto& g : f.object->fields) nested_ok = nested_ok && !g.required;
      if (nested_ok) {
        out[f.key] = resolve(json::object(), *f.object, p, file);  // nested defaults
      } else if (!f.def.is_null()) {
        out[f.key] = resolve_value(f.def, f, f.type, p, file);
      } else if (f.nullable) {
        out[f.key] = nullptr;
      }
      continue;
    }
    out[f.key] = resolve_value(*it, f, f.type, p, file);
  }
  if (spec.check) spec.check(out, pointer, file);
  return out;
}

json json_schema(const ObjectSpec& spec) {
  json s = schema_of_object(spec);
  s["$schema"] = "https://json-schema.org/draft/2020-12/schema";
  s["title"] = spec.name;
  return s;
}

std::string describe(const ObjectSpec& spec, int indent) {
  std::ostringstream os;
  const std::string pad(static_cast<size_t>(indent), ' ');
  for (const auto& f : spec.fields) {
    std::string type = f.type == Type::Enum ? expected_text(f, f.type) : type_name(f.type);
    if (f.type == Type::Array || f.type == Type::Map) type += f.object ? " of " + f.object->name : std::string(" of ") + type_name(f.item);
    std::string def = f.required ? "required" : "default " + (f.def.is_null() ? std::string(f.nullable ? "null" : "-") : f.def.dump());
    if (!f.unit.empty()) def += ", unit " + f.unit;
    os << pad << f.key << " (" << type << ", " << def << ")";
    if (!f.doc.empty()) os << ": " << f.doc;
    os << "\n";
    if (f.object && f.type == Type::Object) os << describe(*f.object, indent + 2);
    if (f.object && (f.type == Type::Array || f.type == Type::Map)) os << describe(*f.object, indent + 2);
  }
  return os.str();
}

}  // namespace floorsim::cfg
