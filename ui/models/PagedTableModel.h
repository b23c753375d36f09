#pragma once

#include "engine/TablePage.h"

#include <QAbstractTableModel>
#include <optional>

namespace forkscope::ui {

// A read-only table model that never holds a whole table: rows arrive a page at a time
// from the engine (requestPage -> queued -> applyPage) as the view scrolls (fetchMore).
// Sorting and filtering are done by the engine in SQL; both restart the paging.
class PagedTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    PagedTableModel(engine::TableRequest::Kind kind, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    bool canFetchMore(const QModelIndex& parent) const override;
    void fetchMore(const QModelIndex& parent) override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

    engine::TableRequest::Kind kind() const { return m_kind; }
    void setFilter(const QString& text);
    QString filter() const { return m_filter; }
    // Which environment to browse (empty: the engine's live one).
    void setEnvironment(const QString& environmentId);
    // Drops what is loaded and asks again from the first page (new data, reconnected engine).
    // Before the first request (no view has fetched yet) it only keeps the new parameters.
    void refresh();
    // Loads the first pages again and updates the rows in place (no model reset), so the
    // view keeps its selection and scroll position: the periodic refresh and the button.
    void reload();
    // A token amount's metadata, when the engine read it (the amount is shown scaled).
    std::optional<chain::TokenInfo> tokenOf(const QModelIndex& index) const;
    // The full text of a cell (what Copy takes): amounts in raw units.
    QString fullText(const QModelIndex& index) const;
    bool isLoading() const { return m_pendingTicket != 0; }
    bool atEnd() const { return m_atEnd; }
    QString lastError() const { return m_error; }
    static constexpr int kPageSize = 200;

public slots:
    // Pages for another model, or for a request this model has since superseded, are ignored.
    void applyPage(const forkscope::engine::TablePage& page);

signals:
    void pageRequested(const forkscope::engine::TableRequest& request);
    void loadingChanged();

private:
    // One request in flight; `replaces`: its rows replace the loaded ones (reload).
    void send(int offset, int limit, bool replaces);

    engine::TableRequest::Kind m_kind;
    QStringList m_columns;
    engine::AmountColumns m_amount;
    QHash<QString, chain::TokenInfo> m_tokens; // by token address, from the pages
    QList<QStringList> m_rows;
    QString m_filter;
    QString m_environment;
    int m_sortColumn = 0;
    bool m_descending = true;
    bool m_atEnd = false;
    quint64 m_ticket = 0;           // the newest request sent
    quint64 m_pendingTicket = 0;    // the request in flight (0: none)
    bool m_pendingReplaces = false; // that request's rows replace the loaded ones (reload)
    QString m_error;
};

} // namespace forkscope::ui
