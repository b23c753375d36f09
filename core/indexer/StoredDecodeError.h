#pragma once

#include "TransferDecoder.h"
#include "abi/EventRegistry.h"

#include <QByteArray>
#include <QStringList>

namespace forkscope::indexer {

// logs.decode_error as both stores write it: why a Transfer-looking log is not a Transfer,
// and why the ABI could not decode the log, joined; empty (stored as NULL) when neither.
// The log is stored either way: a log that fails to decode is kept raw, never dropped.
inline QByteArray storedDecodeError(const TransferDecodeFailure* transferFailure,
                                    const abi::EventDecoding& abiDecoding)
{
    QStringList errors;
    if (transferFailure)
        errors << transferFailure->reason;
    if (abiDecoding.status == abi::EventDecoding::Status::Failed)
        errors << QStringLiteral("ABI: ") + abiDecoding.error;
    return errors.join(QStringLiteral("; ")).toUtf8();
}

} // namespace forkscope::indexer
