#include "PagedTableModel.h"
#include "ShortHex.h"
#include "engine/TablePage.h"
#include "widgets/LocalTime.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace forkscope::ui {

PagedTableModel::PagedTableModel(engine::TableRequest::Kind kind, QObject* parent)
    : QAbstractTableModel(parent), m_kind(kind), m_columns(engine::tableColumns(kind)),
      m_amount(engine::amountColumns(kind))
{
}

int PagedTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int PagedTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_columns.size());
}

QVariant PagedTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const QString& text = m_rows[index.row()].value(index.column());
    const std::optional<chain::TokenInfo> token = tokenOf(index);
    // A time (a transfer's block, the backfill ledger's "updated at"): local on screen, UTC
    // on hover, stored text copied.
    const bool time = index.column() == engine::timeColumn(m_kind);
    switch (role) {
    case Qt::DisplayRole:
        if (time)
            return LocalTime::format(text);
        return token ? chain::formatTokenAmount(text, *token) : ui::shortHex(text);
    case Qt::ToolTipRole:
        if (time)
            return LocalTime::utc(text);
        // Raw units on hover (and in copies): the formatted amount is for reading only.
        return token ? tr("%1 raw units (%2 decimals)").arg(text).arg(token->decimals) : text;
    case Qt::TextAlignmentRole: {
        // Numbers right-aligned, so amounts of different lengths line up by magnitude.
        bool numeric = !text.isEmpty() || token;
        for (QChar c : text)
            numeric = numeric && (c.isDigit() || c == QLatin1Char('-'));
        return QVariant::fromValue(numeric ? Qt::AlignRight | Qt::AlignVCenter
                                           : Qt::AlignLeft | Qt::AlignVCenter);
    }
    default:
        return {};
    }
}

std::optional<chain::TokenInfo> PagedTableModel::tokenOf(const QModelIndex& index) const
{
    if (index.column() != m_amount.amount)
        return std::nullopt;
    const auto it = m_tokens.constFind(m_rows[index.row()].value(m_amount.token));
    return it == m_tokens.constEnd() ? std::nullopt : std::optional(*it);
}

QString PagedTableModel::fullText(const QModelIndex& index) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    return m_rows[index.row()].value(index.column());
}

QVariant PagedTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Horizontal)
        return m_columns.value(section);
    return section + 1;
}

bool PagedTableModel::canFetchMore(const QModelIndex& parent) const
{
    return !parent.isValid() && !m_atEnd && m_pendingTicket == 0;
}

void PagedTableModel::fetchMore(const QModelIndex& parent)
{
    if (!canFetchMore(parent))
        return;
    send(int(m_rows.size()), kPageSize, false);
}

void PagedTableModel::send(int offset, int limit, bool replaces)
{
    engine::TableRequest r;
    r.kind = m_kind;
    r.environmentId = m_environment;
    r.filter = m_filter;
    r.sortColumn = m_sortColumn;
    r.descending = m_descending;
    r.offset = offset;
    r.limit = limit;
    r.ticket = ++m_ticket;
    r.requester = this;
    m_pendingTicket = r.ticket;
    m_pendingReplaces = replaces;
    emit loadingChanged();
    emit pageRequested(r);
}

void PagedTableModel::applyPage(const engine::TablePage& page)
{
    if (page.request.requester != this || page.request.ticket != m_pendingTicket)
        return;
    m_error = page.error;
    // Metadata only grows while the scope stays (it is read once per token).
    for (auto it = page.tokens.constBegin(); it != page.tokens.constEnd(); ++it)
        m_tokens.insert(it.key(), it.value());
    m_atEnd = page.atEnd || !page.error.isEmpty();
    // Still "loading" while the rows go in: a view (or tester) that reacts to the insert
    // by asking for more must not ask for the same offset again.
    if (std::exchange(m_pendingReplaces, false)) {
        // A reload: the same rows where they are, changed cells announced, the difference
        // inserted or removed at the end. A view's selection and scroll stay put.
        const int old = int(m_rows.size());
        const int now = int(page.rows.size());
        const int common = std::min(old, now);
        for (int r = 0; r < common; ++r)
            m_rows[r] = page.rows[r];
        if (common > 0)
            emit dataChanged(index(0, 0), index(common - 1, int(m_columns.size()) - 1));
        if (now > old) {
            beginInsertRows({}, old, now - 1);
            m_rows.append(page.rows.mid(old));
            endInsertRows();
        } else if (now < old) {
            beginRemoveRows({}, now, old - 1);
            m_rows.resize(now);
            endRemoveRows();
        }
    } else if (!page.rows.isEmpty()) {
        beginInsertRows({}, int(m_rows.size()), int(m_rows.size() + page.rows.size()) - 1);
        m_rows.append(page.rows);
        endInsertRows();
    }
    m_pendingTicket = 0;
    emit loadingChanged();
}

void PagedTableModel::sort(int column, Qt::SortOrder order)
{
    if (column < 0 || column >= m_columns.size())
        return;
    m_sortColumn = column;
    m_descending = order == Qt::DescendingOrder;
    refresh();
}

void PagedTableModel::setFilter(const QString& text)
{
    if (text == m_filter)
        return;
    m_filter = text;
    refresh();
}

void PagedTableModel::setEnvironment(const QString& environmentId)
{
    if (environmentId == m_environment)
        return;
    m_environment = environmentId;
    m_tokens.clear(); // another environment's token at the same address may be another token
    refresh();
}

void PagedTableModel::reload()
{
    if (m_ticket == 0 || m_pendingTicket != 0)
        return; // nothing shown yet, or a page on its way that will bring fresh rows
    // What is loaded, again (at least a page): the rows under the user's eyes stay.
    send(0, std::max(kPageSize, int(m_rows.size())), true);
}

void PagedTableModel::refresh()
{
    if (m_ticket == 0)
        return; // nothing asked yet: the view's first fetchMore uses the new parameters
    beginResetModel();
    m_rows.clear();
    m_atEnd = false;
    m_error.clear();
    endResetModel();
    // A page still in flight is for the old view (or a stopped engine that will never
    // answer): forget it; its ticket no longer matches when it arrives.
    m_pendingTicket = 0;
    m_pendingReplaces = false;
    fetchMore({});
}

} // namespace forkscope::ui
