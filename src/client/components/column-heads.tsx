import type { ReactNode } from 'react';

/**
 * A table's head: one row of column headings (`scope="col"`, so a screen reader names each cell
 * by its column), in the order given. A column a table shows only sometimes is given as `null`
 * and left out.
 */
export function ColumnHeads({ columns }: { columns: readonly ReactNode[] }) {
  return (
    <thead>
      <tr>
        {columns
          .filter((column) => column !== null && column !== undefined && column !== false)
          .map((column, index) => (
            <th scope="col" key={index}>
              {column}
            </th>
          ))}
      </tr>
    </thead>
  );
}
