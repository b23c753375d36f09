#include "HeaderHash.h"
#include "Rlp.h"
#include "chain/Address.h"
#include "chain/ChainParseError.h"
#include "chain/Hex.h"
#include "chain/Keccak.h"
#include "chain/LogsBloom.h"
#include "chain/U256.h"

#include <QJsonObject>
#include <QStringList>
#include <algorithm>
#include <array>

namespace forkscope::proof {

using chain::ChainParseError;
namespace hex = chain::hex;

namespace {
enum class Kind { Hash32, Address, Bloom, Quantity, Bytes, Nonce };

struct Field
{
    const char* name;
    Kind kind;
};

constexpr std::array<Field, 15> kBase{{
    {"parentHash", Kind::Hash32},
    {"sha3Uncles", Kind::Hash32},
    {"miner", Kind::Address},
    {"stateRoot", Kind::Hash32},
    {"transactionsRoot", Kind::Hash32},
    {"receiptsRoot", Kind::Hash32},
    {"logsBloom", Kind::Bloom},
    {"difficulty", Kind::Quantity},
    {"number", Kind::Quantity},
    {"gasLimit", Kind::Quantity},
    {"gasUsed", Kind::Quantity},
    {"timestamp", Kind::Quantity},
    {"extraData", Kind::Bytes},
    {"mixHash", Kind::Hash32},
    {"nonce", Kind::Nonce},
}};

// In the order the forks appended them; a header has a prefix of this list.
constexpr std::array<Field, 6> kOptional{{
    {"baseFeePerGas", Kind::Quantity},       // London
    {"withdrawalsRoot", Kind::Hash32},       // Shanghai
    {"blobGasUsed", Kind::Quantity},         // Cancun
    {"excessBlobGas", Kind::Quantity},       // Cancun
    {"parentBeaconBlockRoot", Kind::Hash32}, // Cancun
    {"requestsHash", Kind::Hash32},          // Prague
}};

// Keys of an eth_getBlockBy* object that are not header fields.
const QStringList& bodyKeys()
{
    static const QStringList keys{
        QStringLiteral("hash"),   QStringLiteral("totalDifficulty"), QStringLiteral("size"),
        QStringLiteral("uncles"), QStringLiteral("transactions"),    QStringLiteral("withdrawals"),
    };
    return keys;
}

QByteArray encodeField(const QJsonValue& v, const Field& field, const QString& name)
{
    switch (field.kind) {
    case Kind::Hash32:
        return rlp::encodeBytes(chain::Hash32::fromJson(v, name).toByteArray());
    case Kind::Address:
        return rlp::encodeBytes(chain::Address::fromJson(v, name).toByteArray());
    case Kind::Bloom:
        return rlp::encodeBytes(chain::LogsBloom::fromJson(v, name).toByteArray());
    case Kind::Quantity:
        return rlp::encodeUint(chain::u256::fromQuantity(v, name));
    case Kind::Bytes:
        return rlp::encodeBytes(hex::parseData(v, name));
    case Kind::Nonce:
        return rlp::encodeBytes(hex::parseData(v, name, 8));
    }
    return {};
}

bool present(const QJsonObject& o, const char* name)
{
    const QJsonValue v = o.value(QLatin1String(name));
    return !v.isUndefined() && !v.isNull();
}
} // namespace

chain::Hash32 computeHeaderHash(const QJsonValue& block, const QString& context)
{
    if (!block.isObject())
        throw ChainParseError(context, hex::describe(block),
                              QStringLiteral("expected a block object"));
    const QJsonObject o = block.toObject();
    // -> QString: with QT_USE_QSTRINGBUILDER, auto would return a builder that refers to
    // temporaries of this call.
    const auto f = [&](const char* name) -> QString {
        return context + QLatin1Char('.') + QLatin1String(name);
    };
    QList<QByteArray> items;
    items.reserve(qsizetype(kBase.size() + kOptional.size()));
    for (const Field& field : kBase)
        items.append(encodeField(o.value(QLatin1String(field.name)), field, f(field.name)));
    const char* firstMissing = nullptr;
    for (const Field& field : kOptional) {
        if (!present(o, field.name)) {
            if (!firstMissing)
                firstMissing = field.name;
            continue;
        }
        // A header is the base fields plus a prefix of the later ones: a gap would make
        // the hash of a header no fork ever defined.
        if (firstMissing)
            throw ChainParseError(f(field.name), hex::describe(o.value(QLatin1String(field.name))),
                                  QStringLiteral("present while %1, added by an earlier fork, "
                                                 "is missing")
                                      .arg(QLatin1String(firstMissing)));
        items.append(encodeField(o.value(QLatin1String(field.name)), field, f(field.name)));
    }
    return chain::keccak256(rlp::encodeList(items));
}

HeaderHashCheck verifyHeaderHash(const QJsonValue& block, const QString& context)
{
    HeaderHashCheck c;
    try {
        c.header = chain::BlockHeader::fromJson(block, context);
        c.computed = computeHeaderHash(block, context);
    } catch (const ChainParseError& e) {
        c.problem = e.message();
        return c;
    }
    if (c.computed == c.header.hash) {
        c.ok = true;
        return c;
    }
    // Fields Forkscope does not hash: most likely a fork newer than this build knows.
    QStringList unknown;
    const QJsonObject o = block.toObject();
    for (auto it = o.constBegin(); it != o.constEnd(); ++it) {
        const QByteArray key = it.key().toLatin1();
        const auto known = [&](const Field& fd) { return key == fd.name; };
        if (!bodyKeys().contains(it.key()) && std::none_of(kBase.begin(), kBase.end(), known) &&
            std::none_of(kOptional.begin(), kOptional.end(), known))
            unknown << chain::shownText(it.key(), 40);
    }
    c.problem = QStringLiteral("%1: its fields hash to %2, not to its hash %3")
                    .arg(context, c.computed.toHex(), c.header.hash.toHex());
    // The node's keys, a few of them: the line stays readable whatever the node sends.
    constexpr qsizetype kNamed = 5;
    if (unknown.size() > kNamed) {
        const qsizetype more = unknown.size() - kNamed;
        unknown.resize(kNamed);
        unknown << QStringLiteral("and %1 more").arg(more);
    }
    if (!unknown.isEmpty())
        c.problem += QStringLiteral(" (it has fields Forkscope does not know: %1; a newer fork "
                                    "or another chain's header layout?)")
                         .arg(unknown.join(QStringLiteral(", ")));
    return c;
}

} // namespace forkscope::proof
