// The ABI file reader (--abi, the settings dialog): EventRegistry::fromBytes, what fromFile
// reads a file with, and the AbiType / AbiParam readers under it. The input is the file. It
// is read into a registry or refused with one AbiError line; reading it again gives the same
// registry; and every event input's type, written out canonically, reads back as itself.

#include "FuzzSupport.h"
#include "abi/AbiType.h"
#include "abi/EventRegistry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace abi = forkscope::abi;

namespace {

bool hasTuple(const abi::AbiType& t)
{
    if (t.kind == abi::AbiType::Kind::Tuple)
        return true;
    return t.element && hasTuple(*t.element);
}

void checkType(const abi::AbiType& t)
{
    const QString canonical = t.canonical();
    FUZZ_CHECK(!canonical.isEmpty(), canonical);
    FUZZ_CHECK(t.headWords() <= abi::AbiType::kMaxHeadWords, canonical);
    if (hasTuple(t)) {
        for (const abi::AbiParam& c : t.components)
            checkType(c.type);
        if (t.element)
            checkType(*t.element);
        return;
    }
    const abi::AbiType again = abi::AbiType::fromJson(
        QJsonObject{{QStringLiteral("type"), canonical}}, QStringLiteral("canonical"));
    FUZZ_CHECK(again.canonical() == canonical,
               canonical + QStringLiteral(" read back as ") + again.canonical());
    FUZZ_CHECK(again.isDynamic() == t.isDynamic() && again.headWords() == t.headWords(), canonical);
}

// The event inputs of an ABI the registry accepted, checked one by one.
void checkInputs(const QByteArray& file)
{
    const QJsonDocument doc = QJsonDocument::fromJson(file);
    const QJsonArray entries =
        doc.isArray() ? doc.array() : doc.object().value(QLatin1String("abi")).toArray();
    for (const QJsonValue& e : entries) {
        const QJsonObject o = e.toObject();
        if (o.value(QLatin1String("type")).toString() != QLatin1String("event"))
            continue;
        const QJsonArray inputs = o.value(QLatin1String("inputs")).toArray();
        for (const QJsonValue& in : inputs)
            checkType(abi::AbiParam::fromJson(in, QStringLiteral("input")).type);
    }
}

} // namespace

FUZZ_INIT

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const QByteArray file = forkscope::fuzz::bytes(data, size);
    const QString origin = QStringLiteral("fuzz.abi.json");
    try {
        const abi::EventRegistry r = abi::EventRegistry::fromBytes(file, origin);
        FUZZ_CHECK(r.digest().size() == 16, r.digest());
        FUZZ_CHECK(r.eventCount() >= 0, QString::number(r.eventCount()));
        const abi::EventRegistry again = abi::EventRegistry::fromBytes(file, origin);
        FUZZ_CHECK(again.digest() == r.digest() && again.eventCount() == r.eventCount(),
                   again.digest());
        checkInputs(file);
    } catch (const abi::AbiError& e) {
        const QString m = e.message();
        FUZZ_CHECK(forkscope::fuzz::isOneLine(m, forkscope::fuzz::kUnbounded), m);
        FUZZ_CHECK(m.startsWith(origin) || m.startsWith(QStringLiteral("ABI file ") + origin), m);
    }
    return 0;
}
