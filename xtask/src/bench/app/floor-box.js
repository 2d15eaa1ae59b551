const box = document.createElement('input');
box.id = 'bench-floor-box';
box.type = 'search';
box.autocomplete = 'off';
document.getElementById('domain-filter').after(box);
return true;
