// The analysis list is a client-side app: rows come from the JSON API, a little after page
// load, so a crawler must run JavaScript and wait for them (data-state="loaded").
(function () {
  const table = document.getElementById("analysis-table");
  const page = Number(table.dataset.page);
  const delay = Number(table.dataset.delay);

  function cell(className, child) {
    const td = document.createElement("td");
    td.className = className;
    td.append(child);
    return td;
  }

  function render(data) {
    const body = table.querySelector("tbody");
    for (const analysis of data.analyses) {
      const link = document.createElement("a");
      link.href = analysis.url;
      link.textContent = analysis.id;
      const row = document.createElement("tr");
      row.className = "analysis-row";
      row.append(cell("analysis-id", link), cell("analysis-title", analysis.title));
      body.append(row);
    }
    const pager = document.getElementById("pager");
    pager.textContent = `Page ${data.page} of ${data.pages}`;
    if (data.page < data.pages) {
      const next = document.createElement("a");
      next.id = "next-page";
      next.href = `/analyses?page=${data.page + 1}`;
      next.textContent = "Next »";
      pager.append(" ", next);
    }
    table.dataset.state = "loaded";
  }

  fetch(`/api/analyses?page=${page}`, { credentials: "same-origin" }).then(async (response) => {
    if (response.status === 401) {
      const here = encodeURIComponent(location.pathname + location.search);
      location.assign(`/login?next=${here}&expired=1`);
      return;
    }
    const data = await response.json();
    setTimeout(() => render(data), delay);
  });
})();
