#pragma once

#include "Hash32.h"

#include <QByteArrayView>

namespace forkscope::chain {

// Ethereum's Keccak-256 (the pre-standard padding, not SHA3-256).
Hash32 keccak256(QByteArrayView data);

// topic0 of an event, e.g. eventTopic("Transfer(address,address,uint256)").
Hash32 eventTopic(const QString& canonicalSignature);

} // namespace forkscope::chain
