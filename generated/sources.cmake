# placeholder until lazygen writes it
