#include "TablePage.h"

namespace forkscope::engine {

QStringList tableColumns(TableRequest::Kind kind)
{
    switch (kind) {
    case TableRequest::Kind::Transfers:
        return {QStringLiteral("block"),   QStringLiteral("time"),  QStringLiteral("log"),
                QStringLiteral("tx hash"), QStringLiteral("token"), QStringLiteral("from"),
                QStringLiteral("to"),      QStringLiteral("value")};
    case TableRequest::Kind::Balances:
        return {QStringLiteral("token"), QStringLiteral("holder"), QStringLiteral("balance"),
                QStringLiteral("updated at block")};
    case TableRequest::Kind::Backfill:
        return {QStringLiteral("from block"), QStringLiteral("to block"),
                QStringLiteral("status"),     QStringLiteral("attempts"),
                QStringLiteral("last error"), QStringLiteral("updated at")};
    }
    return {};
}

AmountColumns amountColumns(TableRequest::Kind kind)
{
    switch (kind) {
    case TableRequest::Kind::Transfers:
        return {4, 7};
    case TableRequest::Kind::Balances:
        return {0, 2};
    case TableRequest::Kind::Backfill:
        return {};
    }
    return {};
}

int timeColumn(TableRequest::Kind kind)
{
    switch (kind) {
    case TableRequest::Kind::Transfers:
        return 1; // the block's time
    case TableRequest::Kind::Balances:
        return -1;
    case TableRequest::Kind::Backfill:
        return 5; // updated at
    }
    return -1;
}

} // namespace forkscope::engine
