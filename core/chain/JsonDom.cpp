#include "JsonDom.h"
#include "Hex.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>
#include <mutex>
#include <vector>

namespace forkscope::chain::json {

using simdjson::dom::element_type;

namespace {
// One parser per thread: its buffers grow to the largest reply and are reused; each
// Document owns the tape and strings of its own text.
simdjson::dom::parser& threadParser()
{
    thread_local simdjson::dom::parser parser;
    return parser;
}

// The tape and string buffer a parsed text needs, recycled between Documents. simdjson sizes
// them by the text: 8 bytes of tape and 5/3 of a byte of strings per byte, so an
// eth_getLogs reply of 1,000 logs (about 1 MiB) needs 10 MiB. Allocated afresh for each
// reply, those large blocks came back from glibc as new pages (mapped, or trimmed from the
// arena and refilled), and the parse took a page fault on each page it wrote: in a full sync
// on this machine's VM the faults cost more CPU than the parse itself. Recycled buffers
// keep their pages. Documents die on whichever thread drops the last handle, hence one pool
// behind a mutex rather than one per thread. Bounded: a few documents (one per fetch
// worker), none for texts past 8 MiB, so an outsized reply's buffers are freed as before
// and never stay resident. Only texts from kRecycleFrom on use it: a small reply's buffers
// are blocks malloc recycles itself, and in the pool they would displace large ones.
constexpr std::size_t kRecycleFrom = std::size_t(64) << 10;

class DocumentBuffers
{
public:
    static DocumentBuffers& instance()
    {
        // Never destroyed: a Document may die in another static's destructor at exit.
        static auto* pool = new DocumentBuffers;
        return *pool;
    }
    simdjson::dom::document take()
    {
        std::lock_guard lock(m_mutex);
        if (m_free.empty())
            return {};
        simdjson::dom::document d = std::move(m_free.back());
        m_free.pop_back();
        return d;
    }
    void give(simdjson::dom::document&& d)
    {
        if (d.capacity() < kRecycleFrom || d.capacity() > kMaxCapacity)
            return;
        std::lock_guard lock(m_mutex);
        if (m_free.size() < kMaxKept)
            m_free.push_back(std::move(d));
    }

private:
    static constexpr std::size_t kMaxKept = 4;
    static constexpr std::size_t kMaxCapacity = std::size_t(8) << 20;
    std::mutex m_mutex;
    std::vector<simdjson::dom::document> m_free;
};

double numberOf(simdjson::dom::element e)
{
    switch (e.type()) {
    case element_type::INT64:
        return double(e.get_int64().value_unsafe());
    case element_type::UINT64:
        return double(e.get_uint64().value_unsafe());
    default:
        return e.get_double().value_unsafe();
    }
}

QString stringOf(simdjson::dom::element e)
{
    const std::string_view s = e.get_string().value_unsafe();
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}
} // namespace

static_assert(ParsedJson::kPaddingBytes >= qsizetype(simdjson::SIMDJSON_PADDING));

Document::~Document()
{
    DocumentBuffers::instance().give(std::move(m_doc));
}

simdjson::error_code Document::parse(const char* text, std::size_t size, bool copy)
{
    simdjson::dom::parser& parser = threadParser();
    // simdjson grows a document and a parser to exactly the text at hand, so large replies a
    // few bytes apart would each reallocate the recycled buffers: those get a quarter more,
    // rounded up to a MiB. Small texts keep the exact size.
    constexpr std::size_t kMiB = std::size_t(1) << 20;
    if (size >= kRecycleFrom) {
        if (m_doc.capacity() == 0)
            m_doc = DocumentBuffers::instance().take();
        const std::size_t roomy = (size + size / 4 + kMiB) & ~(kMiB - 1);
        if (m_doc.capacity() < size)
            if (const simdjson::error_code e = m_doc.allocate(roomy); e != simdjson::SUCCESS)
                return e;
        if (parser.capacity() < size)
            if (const simdjson::error_code e = parser.allocate(roomy, parser.max_depth());
                e != simdjson::SUCCESS)
                return e;
    }
    auto r = parser.parse_into_document(m_doc, text, size, copy);
    if (r.error())
        return r.error();
    m_root = r.value_unsafe();
    return simdjson::SUCCESS;
}

simdjson::error_code Document::parse(const QByteArray& text)
{
    // A 5 MiB eth_getLogs reply copied into the parser's own padded buffer cost a memcpy and
    // kept that buffer resident on every fetch thread; JsonRpcClient leaves the padding.
    const bool padded = text.capacity() - text.size() >= ParsedJson::kPaddingBytes;
    return parse(text.constData(), std::size_t(text.size()), !padded);
}

QString describe(const Value& v)
{
    if (!v.present)
        return QStringLiteral("nothing (field missing)");
    switch (v.e.type()) {
    case element_type::NULL_VALUE:
        return QStringLiteral("null");
    case element_type::BOOL:
        return v.e.get_bool().value_unsafe() ? QStringLiteral("true") : QStringLiteral("false");
    case element_type::INT64:
    case element_type::UINT64:
    case element_type::DOUBLE:
        return QStringLiteral("the JSON number %1").arg(numberOf(v.e), 0, 'g', 17);
    case element_type::STRING:
        return QLatin1Char('"') + stringOf(v.e) + QLatin1Char('"');
    case element_type::ARRAY:
        return QStringLiteral("a JSON array");
    case element_type::OBJECT:
        return QStringLiteral("a JSON object");
    }
    return QStringLiteral("an unknown value");
}

QJsonValue toQt(const Value& v)
{
    if (!v.present)
        return QJsonValue(QJsonValue::Undefined);
    switch (v.e.type()) {
    case element_type::NULL_VALUE:
        return QJsonValue(QJsonValue::Null);
    case element_type::BOOL:
        return QJsonValue(v.e.get_bool().value_unsafe());
    case element_type::INT64:
        // Qt's own parser keeps an integer that fits in 64 bits as one.
        return QJsonValue(qint64(v.e.get_int64().value_unsafe()));
    case element_type::UINT64:
    case element_type::DOUBLE:
        return QJsonValue(numberOf(v.e));
    case element_type::STRING:
        return QJsonValue(stringOf(v.e));
    case element_type::ARRAY: {
        QJsonArray a;
        simdjson::dom::array array;
        if (v.e.get_array().get(array) != simdjson::SUCCESS)
            return {};
        for (const simdjson::dom::element x : array)
            a.append(toQt(Value::of(x)));
        return a;
    }
    case element_type::OBJECT: {
        QJsonObject o;
        simdjson::dom::object object;
        if (v.e.get_object().get(object) != simdjson::SUCCESS)
            return {};
        for (const simdjson::dom::key_value_pair kv : object)
            o.insert(QString::fromUtf8(kv.key.data(), qsizetype(kv.key.size())),
                     toQt(Value::of(kv.value)));
        return o;
    }
    }
    return {};
}

Value member(simdjson::dom::object o, std::string_view name)
{
    return members<1>(o, {name})[0];
}

simdjson::dom::object requireObject(const Value& v, const FieldPath& field, const char* expected)
{
    if (!v.is(element_type::OBJECT))
        throw ChainParseError(field.toString(), describe(v), QString::fromLatin1(expected));
    return v.e.get_object().value_unsafe();
}

simdjson::dom::array requireArray(const Value& v, const FieldPath& field, const char* expected)
{
    if (!v.is(element_type::ARRAY))
        throw ChainParseError(field.toString(), describe(v), QString::fromLatin1(expected));
    return v.e.get_array().value_unsafe();
}

std::string_view requireString(const Value& v, const FieldPath& field, const char* expected)
{
    if (!v.is(element_type::STRING))
        throw ChainParseError(field.toString(), describe(v), QString::fromLatin1(expected));
    return v.e.get_string().value_unsafe();
}

std::uint64_t quantityU63(const Value& v, const FieldPath& field)
{
    return hex::parseQuantityU63(requireString(v, field, "expected a 0x-prefixed hex string"),
                                 field);
}

QByteArray data(const Value& v, const FieldPath& field)
{
    return hex::parseData(requireString(v, field, "expected 0x-prefixed hex bytes"), field);
}

} // namespace forkscope::chain::json

namespace forkscope::chain {

ParsedJson ParsedJson::parse(const QByteArray& text, QString* error)
{
    auto doc = std::make_shared<json::Document>();
    if (const simdjson::error_code e = doc->parse(text); e != simdjson::SUCCESS) {
        if (error)
            *error = QString::fromLatin1(simdjson::error_message(e));
        return {};
    }
    const simdjson::dom::element root = doc->root();
    return ParsedJson(std::make_shared<const Node>(Node{std::move(doc), root}));
}

QJsonValue ParsedJson::toQt() const
{
    return json::toQt(json::valueOf(*this));
}

} // namespace forkscope::chain

namespace forkscope::chain::json {

namespace {
void write(QByteArray& out, const QJsonValue& v)
{
    switch (v.type()) {
    case QJsonValue::Null:
    case QJsonValue::Undefined:
        out += "null";
        return;
    case QJsonValue::Bool:
        out += v.toBool() ? "true" : "false";
        return;
    case QJsonValue::Double: {
        const double d = v.toDouble();
        if (!std::isfinite(d))
            out += "null"; // as Qt writes it
        else if (d == std::trunc(d) && std::fabs(d) < 9.2e18)
            out += QByteArray::number(qint64(d));
        else
            out += QByteArray::number(d, 'e', 16);
        return;
    }
    case QJsonValue::String: {
        // Qt's escaping, without the brackets around it.
        const QByteArray a = QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact);
        out += QByteArrayView(a).sliced(1, a.size() - 2);
        return;
    }
    case QJsonValue::Array: {
        out += '[';
        const QJsonArray a = v.toArray();
        for (qsizetype i = 0; i < a.size(); ++i) {
            if (i > 0)
                out += ',';
            write(out, a.at(i));
        }
        out += ']';
        return;
    }
    case QJsonValue::Object: {
        out += '{';
        const QJsonObject o = v.toObject();
        bool first = true;
        for (auto it = o.constBegin(); it != o.constEnd(); ++it) {
            if (!first)
                out += ',';
            first = false;
            write(out, QJsonValue(it.key()));
            out += ':';
            write(out, it.value());
        }
        out += '}';
        return;
    }
    }
}
} // namespace

QByteArray toJsonText(const QJsonValue& v)
{
    QByteArray out;
    write(out, v);
    return out;
}

QByteArray wrapForParsing(const QJsonValue& v)
{
    return '[' + toJsonText(v) + ']';
}

} // namespace forkscope::chain::json
