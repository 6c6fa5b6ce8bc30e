/**
 * The options of a `<select>` over a closed set of `values`, each shown in its `words` (the
 * domain's words for statuses, reasons, ledger kinds), after `first` where given: a filter's
 * "All statuses", with its own value.
 */
export function WordOptions<V extends string>({
  values,
  words,
  first,
}: {
  values: readonly V[];
  words: Readonly<Record<V, string>>;
  first?: { value: string; label: string };
}) {
  return (
    <>
      {first ? <option value={first.value}>{first.label}</option> : null}
      {values.map((value) => (
        <option key={value} value={value}>
          {words[value]}
        </option>
      ))}
    </>
  );
}
