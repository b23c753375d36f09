#pragma once

#include "store/StoreError.h"

#include <QByteArray>

namespace forkscope::store::pg {

// A PostgreSQL failure: a StoreError (so every caller's one-line handling applies) that
// also keeps the server's SQLSTATE, for the few callers that react to one (40001, 55P03).
class PgError : public StoreError
{
public:
    PgError(Kind kind, const QString& message, QByteArray sqlState = {})
        : StoreError(kind, message), m_sqlState(std::move(sqlState))
    {
    }
    const QByteArray& sqlState() const { return m_sqlState; }

private:
    QByteArray m_sqlState;
};

} // namespace forkscope::store::pg
