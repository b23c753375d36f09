#pragma once

#include "chain/TokenAmount.h"

#include <QHash>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>

namespace forkscope::engine {

// A request for one page of a browsable table, and the page that answers it. The GUI's
// models never hold a whole table: they ask for the next page as the view scrolls, and the
// engine answers from its own (read) connection by queued signal.
struct TableRequest
{
    enum class Kind { Transfers, Balances, Backfill };
    Kind kind = Kind::Transfers;
    QString environmentId; // empty: the engine's live environment
    QString filter;        // substring of an address / hash / status (case-insensitive)
    int sortColumn = 0;
    bool descending = true;
    int offset = 0;
    int limit = 200;
    quint64 ticket = 0;           // echoed back: a model ignores pages of a superseded request
    QObject* requester = nullptr; // echoed back: which model asked (never dereferenced)
};

struct TablePage
{
    TableRequest request;
    QList<QStringList> rows; // display text, one entry per column of tableColumns()
    bool atEnd = false;      // fewer rows than asked: nothing more to fetch
    QString error;           // the query failed: shown by the view, rows empty
    // decimals() and symbol() of the tokens on this page, by lowercase 0x address, as the
    // live environment's node answered them (read once per token). A token without usable
    // metadata, or any token of another environment, is absent: its amounts stay raw.
    QHash<QString, chain::TokenInfo> tokens;
};

// Where a kind has a token amount: the token's column and the amount's (raw units).
struct AmountColumns
{
    int token = -1;
    int amount = -1;
    bool isValid() const { return token >= 0; }
};
AmountColumns amountColumns(TableRequest::Kind kind);

// Column titles per kind (what the models show; the sort column indexes into these).
QStringList tableColumns(TableRequest::Kind kind);

// The column holding a time (ISO-8601 UTC text, "2026-12-01T23:50:25Z"), or -1: the
// transfers' block time, the backfill ledger's last update.
int timeColumn(TableRequest::Kind kind);

} // namespace forkscope::engine

Q_DECLARE_METATYPE(forkscope::engine::TableRequest)
Q_DECLARE_METATYPE(forkscope::engine::TablePage)
