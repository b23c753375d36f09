#include "Keccak.h"

#include <QCryptographicHash>

namespace forkscope::chain {

Hash32 keccak256(QByteArrayView data)
{
    return Hash32::fromBytes(QCryptographicHash::hash(data, QCryptographicHash::Keccak_256),
                             QStringLiteral("keccak256"));
}

Hash32 eventTopic(const QString& canonicalSignature)
{
    return keccak256(canonicalSignature.toUtf8());
}

} // namespace forkscope::chain
