#pragma once

// simdjson's DOM, as the readers of JSON-RPC replies use it: a parsed reply, one value of
// it (or the absence of one), and the strict readers of the hex encodings that name the
// field they reject. Private to forkscope_core: nothing outside it includes simdjson.

#include "ChainParseError.h"
#include "FieldPath.h"
#include "FixedBytes.h"
#include "ParsedJson.h"

#include <QByteArray>
#include <QJsonValue>
#include <array>
#include <cstdint>
#include <simdjson.h>
#include <string_view>

namespace forkscope::chain::json {

// A whole JSON text parsed once. Values read from it stay valid while it lives; it does not
// move (hold it by pointer).
class Document
{
public:
    // A large text is parsed into a recycled tape and string buffer when one is free, and
    // they go back when the Document does (see DocumentBuffers in JsonDom.cpp).
    Document() = default;
    ~Document();
    Document(const Document&) = delete;
    Document& operator=(const Document&) = delete;

    // SUCCESS, or why `text` is not JSON.
    simdjson::error_code parse(const char* text, std::size_t size, bool copy = true);
    // In place when `text` has ParsedJson::kPaddingBytes to spare past its end.
    simdjson::error_code parse(const QByteArray& text);
    simdjson::dom::element root() const { return m_root; }

private:
    simdjson::dom::document m_doc;
    simdjson::dom::element m_root;
};

} // namespace forkscope::chain::json

namespace forkscope::chain {
struct ParsedJson::Node
{
    std::shared_ptr<const json::Document> doc;
    simdjson::dom::element value;
};
} // namespace forkscope::chain

namespace forkscope::chain::json {

// A member's value, or nothing when the object lacks it (QJsonValue's Undefined).
struct Value
{
    simdjson::dom::element e;
    bool present = false;

    static Value of(simdjson::dom::element e) { return {e, true}; }
    bool isNull() const { return present && e.is_null(); }
    bool is(simdjson::dom::element_type t) const { return present && e.type() == t; }
};

// The value a handle holds (absent for an invalid handle).
inline Value valueOf(const ParsedJson& p)
{
    return p.isValid() ? Value::of(p.node()->value) : Value{};
}

// The words hex::describe(QJsonValue) uses for the same value ("null", "the JSON number 16",
// "\"0x12\"", "a JSON object", "nothing (field missing)").
QString describe(const Value& v);
// The value as a QJsonValue (for the callers that keep Qt JSON: errors' data, cold results).
QJsonValue toQt(const Value& v);

// One pass over an object's members, picking the `names` in order; a member an object holds
// twice counts as its last (as QJsonObject keeps it).
template <std::size_t N>
std::array<Value, N> members(simdjson::dom::object o, const std::array<std::string_view, N>& names)
{
    std::array<Value, N> out{};
    for (const simdjson::dom::key_value_pair kv : o)
        for (std::size_t i = 0; i < N; ++i)
            if (kv.key == names[i]) {
                out[i] = Value::of(kv.value);
                break;
            }
    return out;
}
Value member(simdjson::dom::object o, std::string_view name);

// Each throws ChainParseError(field, describe(v), expected) on a value of another type.
simdjson::dom::object requireObject(const Value& v, const FieldPath& field, const char* expected);
simdjson::dom::array requireArray(const Value& v, const FieldPath& field, const char* expected);
std::string_view requireString(const Value& v, const FieldPath& field, const char* expected);

// The hex encodings (chain/Hex.h), with its rules and messages.
std::uint64_t quantityU63(const Value& v, const FieldPath& field);
QByteArray data(const Value& v, const FieldPath& field);
template <std::size_t N> FixedBytes<N> fixedBytes(const Value& v, const FieldPath& field)
{
    return FixedBytes<N>::fromHex(requireString(v, field, "expected 0x-prefixed hex bytes"), field);
}

// `v` as compact JSON text that simdjson reads back to the same value: numbers that are not
// 64-bit integers are written as doubles with an exponent, where Qt's writer would spell
// 1e20 as an integer simdjson refuses.
QByteArray toJsonText(const QJsonValue& v);
// [v], the same way.
QByteArray wrapForParsing(const QJsonValue& v);

// For callers that hold a QJsonValue (cold paths, tests): the value written out and parsed
// again, so that they and the hot path share one reader. `read` takes a Value.
template <typename Read> auto readQt(const QJsonValue& v, const QString& field, Read&& read)
{
    if (v.isUndefined())
        return read(Value{});
    Document doc;
    const QByteArray text = wrapForParsing(v);
    if (doc.parse(text) != simdjson::SUCCESS)
        throw ChainParseError(field, QString::fromUtf8(text),
                              QStringLiteral("a value simdjson cannot read back"));
    return read(Value::of(doc.root().at(0).value_unsafe()));
}

} // namespace forkscope::chain::json
