#pragma once

#include "engine/EngineStatus.h"

#include <QAbstractTableModel>

namespace forkscope::ui {

// The Environments dock: every environment in the database, the live one and the archived
// ones (newest first, as the engine lists them), keyed by id. Updated in place like
// NodeTableModel, so the selected environment stays selected while the list refreshes.
class EnvironmentListModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Id, ChainId, Created, State, ColumnCount };
    // Whether the row's environment is archived (bool), on every column.
    static constexpr int ArchivedRole = Qt::UserRole + 1;

    explicit EnvironmentListModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    QString environmentId(int row) const;
    bool isArchived(const QString& environmentId) const;
    QString text(int row, Column column) const;
    void setEnvironments(const QList<engine::EngineStatus::EnvironmentEntry>& environments);

public slots:
    // A snapshot without the list says nothing about it: the rows stay as they are.
    void applyStatus(const forkscope::engine::EngineStatus& status);

private:
    QString cell(const engine::EngineStatus::EnvironmentEntry& e, int column) const;
    int indexOf(const QString& id, int from) const;

    QList<engine::EngineStatus::EnvironmentEntry> m_rows;
};

} // namespace forkscope::ui
