import type { TablePaginationConfig } from "antd";
import { useState } from "react";
import { DEFAULT_PAGE_SIZE } from "../../../contract/paging";

/**
 * A locally paged table's page and page size, and the Table's pagination for a total: a size changer,
 * the total in words, and back to page 1 when the size changes.
 */
export function useTablePaging(showTotal: (count: number) => string) {
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(DEFAULT_PAGE_SIZE);
  const pagination = (total: number): TablePaginationConfig => ({
    current: page,
    pageSize,
    total,
    showSizeChanger: true,
    showTotal: (count) => showTotal(count),
    onChange: (next, size) => {
      setPage(size === pageSize ? next : 1);
      setPageSize(size);
    },
  });
  return { page, pageSize, setPage, pagination };
}
